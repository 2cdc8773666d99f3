// hello: answers 4 bytes and does no work (seed 002's ping, seed 003's hello-world).
import java.nio.charset.StandardCharsets;

public final class Main {
    public static void main(String[] args) throws Exception {
        byte[] pong = "pong".getBytes(StandardCharsets.UTF_8);
        Fbrt.serve(r -> pong);
    }
}
