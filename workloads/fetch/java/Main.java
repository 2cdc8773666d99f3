// fetch: GETs a page of ?size bytes after ?delay from the upstream (FB_UPSTREAM_URL), answers its size,
// or with ?reply=body the page itself: seed 004's weather function in Java (an external API call; the
// study's Yahoo service is gone) and seed 003's http-workload. A new connection per invocation, as the
// Python and Node.js versions (the JDK's plain HttpURLConnection, keep-alive off).
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.regex.Pattern;

public final class Main {
    static final Pattern DELAY = Pattern.compile("^[0-9]+(\\.[0-9]+)?(ms|s|us)$");
    static final int TIMEOUT_MS = 120_000;
    static final long MAX_SIZE = 64L << 20;

    static byte[] get(String url) throws IOException {
        HttpURLConnection c = (HttpURLConnection) URI.create(url).toURL().openConnection();
        c.setConnectTimeout(TIMEOUT_MS);
        c.setReadTimeout(TIMEOUT_MS);
        c.setRequestProperty("Connection", "close");
        try {
            int code = c.getResponseCode();
            if (code != 200) throw new IOException("upstream answered " + code);
            try (InputStream in = c.getInputStream()) {
                ByteArrayOutputStream out = new ByteArrayOutputStream();
                in.transferTo(out);
                return out.toByteArray();
            }
        } finally {
            c.disconnect();
        }
    }

    public static void main(String[] args) throws Exception {
        System.setProperty("http.keepAlive", "false");
        Fbrt.serve(r -> {
            String base = System.getenv("FB_UPSTREAM_URL");
            if (base == null || base.isEmpty()) {
                throw new IllegalStateException("FB_UPSTREAM_URL is not set (run faasbench upstream and pass its URL in the function's env)");
            }
            long size;
            try {
                size = Long.parseLong(r.query().getOrDefault("size", "1024"));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("size=" + r.query().get("size") + ": want an integer >= 0");
            }
            if (size < 0 || size > MAX_SIZE) throw new IllegalArgumentException("size=" + size + ": want 0.." + MAX_SIZE);
            String reply = r.query().getOrDefault("reply", "size");
            if (!reply.equals("size") && !reply.equals("body")) throw new IllegalArgumentException("reply=" + reply + ": want size or body");
            String url = base.replaceAll("/$", "") + "/bytes/" + size;
            String delay = r.query().get("delay");
            if (delay != null && !delay.isEmpty()) {
                if (!DELAY.matcher(delay).matches()) throw new IllegalArgumentException("delay=" + delay + ": want a duration such as 250ms or 1s");
                url += "?delay=" + delay;
            }
            byte[] page = get(url);
            if (page.length != size) throw new IOException("upstream sent " + page.length + " bytes, want " + size);
            if (reply.equals("body")) return page;
            return ("fetched " + page.length + " bytes").getBytes(StandardCharsets.UTF_8);
        });
    }
}
