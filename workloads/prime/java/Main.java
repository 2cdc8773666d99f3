// prime: the n-th prime (seed 004) or the largest prime <= n (seed 002, ?kind=largest), by trial division.
import java.nio.charset.StandardCharsets;

public final class Main {
    static final int MAX_N = 10_000_000;

    static boolean isPrime(long k) {
        if (k < 2) return false;
        for (long d = 2; d * d <= k; d++) if (k % d == 0) return false;
        return true;
    }

    public static void main(String[] args) throws Exception {
        Fbrt.serve(r -> {
            int n = Integer.parseInt(r.query().getOrDefault("n", "100"));
            if (n < 1 || n > MAX_N) throw new IllegalArgumentException("n=" + n + ": want 1.." + MAX_N);
            long k;
            if ("largest".equals(r.query().get("kind"))) {
                k = n;
                while (k >= 2 && !isPrime(k)) k--;
                if (k < 2) k = 0;
            } else {
                int count = 0;
                k = 1;
                while (count < n) {
                    k++;
                    if (isPrime(k)) count++;
                }
            }
            return Long.toString(k).getBytes(StandardCharsets.UTF_8);
        });
    }
}
