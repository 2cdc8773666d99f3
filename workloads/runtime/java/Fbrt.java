// faasbench function runtime for Java: serves one handler under the function contract
// (docs/function-contract.md). Handler times are System.nanoTime(), CLOCK_MONOTONIC on Linux.
// Environment: FB_HOST, FB_PORT (0: any), FB_INSTANCE_ID, FB_READY_FD (the bound port is written
// there once listening), FB_MODE=stdio (one invocation from stdin to stdout; Http_Method, Http_Path and
// Http_Query describe it, as OpenFaaS's watchdogs describe a request to a forked process).

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayOutputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;

public final class Fbrt {
    /** One invocation. */
    public record Request(String method, String path, Map<String, String> query, byte[] body) {}

    /** A handler; a thrown exception is the function's error (500 + X-Fb-Error). */
    @FunctionalInterface
    public interface Handler {
        byte[] handle(Request r) throws Exception;
    }

    private Fbrt() {}

    static Map<String, String> parseQuery(String raw) {
        Map<String, String> q = new HashMap<>();
        if (raw == null || raw.isEmpty()) return q;
        for (String kv : raw.split("&")) {
            int i = kv.indexOf('=');
            String k = URLDecoder.decode(i < 0 ? kv : kv.substring(0, i), StandardCharsets.UTF_8);
            String v = i < 0 ? "" : URLDecoder.decode(kv.substring(i + 1), StandardCharsets.UTF_8);
            q.putIfAbsent(k, v);
        }
        return q;
    }

    static byte[] readAll(InputStream in) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        in.transferTo(b);
        return b.toByteArray();
    }

    /** Serves handler until the process is killed (or once, in stdio mode). */
    public static void serve(Handler h) throws Exception {
        if ("stdio".equals(System.getenv("FB_MODE"))) {
            String m = System.getenv().getOrDefault("Http_Method", "POST");
            String p = System.getenv().getOrDefault("Http_Path", "/");
            try {
                byte[] out = h.handle(new Request(m, p, parseQuery(System.getenv("Http_Query")), readAll(System.in)));
                System.out.write(out);
                System.out.flush();
                System.exit(0);
            } catch (Exception e) {
                System.err.println(e.getClass().getSimpleName() + ": " + e.getMessage());
                System.exit(1);
            }
        }
        String host = System.getenv().getOrDefault("FB_HOST", "127.0.0.1");
        int port = Integer.parseInt(System.getenv().getOrDefault("FB_PORT", "8080"));
        String inst = System.getenv().getOrDefault("FB_INSTANCE_ID", java.net.InetAddress.getLocalHost().getHostName() + "-" + ProcessHandle.current().pid());
        AtomicBoolean served = new AtomicBoolean(false);
        // Headers and body leave in two writes: without TCP_NODELAY, Nagle's algorithm and the
        // client's delayed ACK hold every reply on a kept-alive connection for ~40 ms (measured:
        // prime n=100 at 44 ms and 22 req/s with one connection). The JDK's server reads this once.
        System.setProperty("sun.net.httpserver.nodelay", "true");
        HttpServer server = HttpServer.create(new InetSocketAddress(host, port), 1024);
        server.setExecutor(Executors.newCachedThreadPool());
        server.createContext("/", (HttpExchange ex) -> {
            byte[] body = readAll(ex.getRequestBody());
            if ("/_fb/health".equals(ex.getRequestURI().getPath())) {
                ex.getResponseHeaders().set("X-Fb-Instance", inst);
                ex.sendResponseHeaders(200, 2);
                try (OutputStream o = ex.getResponseBody()) { o.write("ok".getBytes(StandardCharsets.UTF_8)); }
                return;
            }
            boolean cold = served.compareAndSet(false, true);
            long begin = System.nanoTime();
            byte[] out;
            int status = 200;
            String error = null;
            try {
                out = h.handle(new Request(ex.getRequestMethod(), ex.getRequestURI().getPath(), parseQuery(ex.getRequestURI().getRawQuery()), body));
            } catch (Exception e) {
                error = e.getClass().getSimpleName() + ": " + e.getMessage();
                out = error.getBytes(StandardCharsets.UTF_8);
                status = 500;
            }
            long end = System.nanoTime();
            var hd = ex.getResponseHeaders();
            hd.set("X-Fb-Instance", inst);
            hd.set("X-Fb-Cold", cold ? "1" : "0");
            if (cold) hd.set("X-Fb-Cold-Kind", "process");
            hd.set("X-Fb-Handler-Begin-Ns", Long.toString(begin));
            hd.set("X-Fb-Handler-End-Ns", Long.toString(end));
            if (error != null) hd.set("X-Fb-Error", error.replace('\n', ' '));
            ex.sendResponseHeaders(status, out.length == 0 ? -1 : out.length);
            try (OutputStream o = ex.getResponseBody()) { o.write(out); }
        });
        server.start();
        int bound = server.getAddress().getPort();
        String fd = System.getenv("FB_READY_FD");
        if (fd != null && !fd.isEmpty()) {
            try (FileOutputStream f = new FileOutputStream("/proc/self/fd/" + fd)) {
                f.write((bound + "\n").getBytes(StandardCharsets.UTF_8));
            }
        } else {
            System.err.println("listening on port " + bound);
        }
    }
}
