// prime: by trial division, the n-th prime (kind=nth, seed 004), or the largest prime <= n found as
// seed 002 did, testing every number from 2 to n in turn (kind=scan: the cost grows with n), or by
// searching down from n (kind=largest: the first prime found ends it).
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
            String kind = r.query().getOrDefault("kind", "nth");
            long k;
            if ("scan".equals(kind)) {
                k = 0;
                for (long j = 2; j <= n; j++) if (isPrime(j)) k = j;
            } else if ("largest".equals(kind)) {
                k = n;
                while (k >= 2 && !isPrime(k)) k--;
                if (k < 2) k = 0;
            } else if ("nth".equals(kind)) {
                int count = 0;
                k = 1;
                while (count < n) {
                    k++;
                    if (isPrime(k)) count++;
                }
            } else {
                throw new IllegalArgumentException("kind=" + kind + ": want nth, largest or scan");
            }
            return Long.toString(k).getBytes(StandardCharsets.UTF_8);
        });
    }
}
