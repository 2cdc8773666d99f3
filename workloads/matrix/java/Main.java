// matrix: multiply two seeded n x n matrices (seed 004); ?ram=K holds K more numbers meanwhile.
import java.nio.charset.StandardCharsets;

public final class Main {
    static final int MAX_N = 2000;
    static final int MAX_RAM = 100_000_000;

    static int cell(int i, int j, int which) {
        return (i * 31 + j * 17 + which * 7) % 10;
    }

    public static void main(String[] args) throws Exception {
        Fbrt.serve(r -> {
            int n = Integer.parseInt(r.query().getOrDefault("n", "50"));
            int ram = Integer.parseInt(r.query().getOrDefault("ram", "0"));
            if (n < 1 || n > MAX_N || ram < 0 || ram > MAX_RAM) {
                throw new IllegalArgumentException("n=" + n + " ram=" + ram + ": want 1.." + MAX_N + " and 0.." + MAX_RAM);
            }
            long[] held = new long[ram]; // the RAM loader
            int[][] a = new int[n][n];
            int[][] b = new int[n][n];
            for (int i = 0; i < n; i++) {
                for (int j = 0; j < n; j++) {
                    a[i][j] = cell(i, j, 0);
                    b[i][j] = cell(i, j, 1);
                }
            }
            long total = 0;
            for (int i = 0; i < n; i++) {
                for (int j = 0; j < n; j++) {
                    long s = 0;
                    for (int k = 0; k < n; k++) s += (long) a[i][k] * b[k][j];
                    total += s;
                }
            }
            return (total + " " + held.length).getBytes(StandardCharsets.UTF_8);
        });
    }
}
