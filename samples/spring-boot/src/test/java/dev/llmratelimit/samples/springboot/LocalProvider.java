package dev.llmratelimit.samples.springboot;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A local OpenAI and Anthropic provider with a request limit of its own: a bucket of {@code capacity}
 * requests refilled at {@code rpm}, past which it answers 429 as each provider does. Every answer uses 10
 * prompt (input) and 20 completion (output) tokens; an embeddings call 3 prompt tokens. OpenAI chat
 * ({@code .../chat/completions}, JSON or a stream, with the usage chunk when asked), OpenAI embeddings
 * ({@code .../embeddings}) and Anthropic messages ({@code /v1/messages}, JSON or a stream). It records every
 * body and the most requests it served in one second.
 */
final class LocalProvider implements AutoCloseable {

    static final int PROMPT_TOKENS = 10;
    static final int COMPLETION_TOKENS = 20;
    static final int EMBEDDING_TOKENS = 3;
    private static final Pattern MODEL = Pattern.compile("\"model\"\\s*:\\s*\"([^\"]+)\"");

    private final HttpServer server;
    private final ExecutorService executor = Executors.newFixedThreadPool(16);
    private final double capacity;
    private final double perNano;
    private final long start = System.nanoTime();
    private double requests;
    private long updatedAt = start;
    private final AtomicInteger served = new AtomicInteger();
    private final AtomicInteger tooMany = new AtomicInteger();
    private final ConcurrentLinkedQueue<String> bodies = new ConcurrentLinkedQueue<>();
    private final Map<Long, AtomicInteger> perSecond = new ConcurrentHashMap<>();

    LocalProvider(long rpm, double capacity) {
        this.capacity = capacity;
        this.perNano = rpm / 60e9;
        this.requests = capacity;
        try {
            server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 100);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        server.setExecutor(executor);
        server.createContext("/", this::handle);
        server.start();
    }

    /** Without a limit worth the name: a million requests a minute. */
    static LocalProvider unlimited() {
        return new LocalProvider(1_000_000, 1_000_000);
    }

    String baseUrl() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    int served() {
        return served.get();
    }

    int tooManyRequests() {
        return tooMany.get();
    }

    List<String> bodies() {
        return List.copyOf(bodies);
    }

    int mostInOneSecond() {
        return perSecond.values().stream().mapToInt(AtomicInteger::get).max().orElse(0);
    }

    /** The model the last body named. */
    String lastModel() {
        Matcher model = MODEL.matcher(bodies().get(bodies.size() - 1));
        return model.find() ? model.group(1) : "";
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            String path = exchange.getRequestURI().getPath();
            boolean anthropic = path.endsWith("/v1/messages");
            if (!anthropic && !path.endsWith("/chat/completions") && !path.endsWith("/embeddings")) {
                send(exchange, 404, "application/json", "{}");
                return;
            }
            bodies.add(body);
            if (!take()) {
                tooMany.incrementAndGet();
                if (anthropic) {
                    exchange.getResponseHeaders().set("retry-after", "1");
                    send(exchange, 429, "application/json", "{\"type\":\"error\",\"error\":{\"type\":\"rate_limit_error\","
                            + "\"message\":\"Number of requests has exceeded your rate limit\"}}");
                } else {
                    exchange.getResponseHeaders().set("retry-after-ms", "1000");
                    send(exchange, 429, "application/json", "{\"error\":{\"message\":\"Rate limit reached\","
                            + "\"type\":\"requests\",\"param\":null,\"code\":\"rate_limit_exceeded\"}}");
                }
                return;
            }
            served.incrementAndGet();
            perSecond.computeIfAbsent((System.nanoTime() - start) / 1_000_000_000L, s -> new AtomicInteger()).incrementAndGet();
            boolean stream = body.replace(" ", "").contains("\"stream\":true");
            if (path.endsWith("/embeddings")) {
                send(exchange, 200, "application/json", "{\"object\":\"list\",\"data\":[{\"object\":\"embedding\",\"index\":0,"
                        + "\"embedding\":[0.25,0.5,0.75]}],\"model\":\"text-embedding-3-small\",\"usage\":{\"prompt_tokens\":"
                        + EMBEDDING_TOKENS + ",\"total_tokens\":" + EMBEDDING_TOKENS + "}}");
            } else if (anthropic) {
                messages(exchange, stream);
            } else {
                chat(exchange, stream, body.replace(" ", "").contains("\"include_usage\":true"));
            }
        }
    }

    private synchronized boolean take() {
        long now = System.nanoTime();
        requests = Math.min(capacity, requests + (now - updatedAt) * perNano);
        updatedAt = now;
        if (requests < 1) {
            return false;
        }
        requests -= 1;
        return true;
    }

    private static void chat(HttpExchange exchange, boolean stream, boolean includeUsage) throws IOException {
        String usage = "{\"prompt_tokens\":" + PROMPT_TOKENS + ",\"completion_tokens\":" + COMPLETION_TOKENS
                + ",\"total_tokens\":" + (PROMPT_TOKENS + COMPLETION_TOKENS) + "}";
        if (!stream) {
            send(exchange, 200, "application/json", "{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion\",\"created\":1,"
                    + "\"model\":\"gpt-4o-mini\",\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\","
                    + "\"content\":\"Hello!\"},\"finish_reason\":\"stop\"}],\"usage\":" + usage + "}");
            return;
        }
        exchange.getResponseHeaders().set("Content-Type", "text/event-stream");
        exchange.sendResponseHeaders(200, 0);
        try (OutputStream out = exchange.getResponseBody()) {
            for (String[] chunk : new String[][]{{"Hello", "null"}, {"!", "\"stop\""}}) {
                data(out, "{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"gpt-4o-mini\","
                        + "\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"" + chunk[0] + "\"},"
                        + "\"finish_reason\":" + chunk[1] + "}]}");
            }
            if (includeUsage) {
                data(out, "{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"gpt-4o-mini\","
                        + "\"choices\":[],\"usage\":" + usage + "}");
            }
            data(out, "[DONE]");
        }
    }

    private static void messages(HttpExchange exchange, boolean stream) throws IOException {
        if (!stream) {
            send(exchange, 200, "application/json", "{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\","
                    + "\"model\":\"claude-haiku-4-5\",\"content\":[{\"type\":\"text\",\"text\":\"Hello!\"}],"
                    + "\"stop_reason\":\"end_turn\",\"stop_sequence\":null,"
                    + "\"usage\":{\"input_tokens\":" + PROMPT_TOKENS + ",\"output_tokens\":" + COMPLETION_TOKENS + "}}");
            return;
        }
        exchange.getResponseHeaders().set("Content-Type", "text/event-stream");
        exchange.sendResponseHeaders(200, 0);
        try (OutputStream out = exchange.getResponseBody()) {
            event(out, "message_start", "{\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\","
                    + "\"role\":\"assistant\",\"model\":\"claude-haiku-4-5\",\"content\":[],\"stop_reason\":null,"
                    + "\"stop_sequence\":null,\"usage\":{\"input_tokens\":" + PROMPT_TOKENS + ",\"output_tokens\":1}}}");
            event(out, "content_block_start", "{\"type\":\"content_block_start\",\"index\":0,"
                    + "\"content_block\":{\"type\":\"text\",\"text\":\"\"}}");
            for (String text : new String[]{"Hello", "!"}) {
                event(out, "content_block_delta", "{\"type\":\"content_block_delta\",\"index\":0,"
                        + "\"delta\":{\"type\":\"text_delta\",\"text\":\"" + text + "\"}}");
            }
            event(out, "content_block_stop", "{\"type\":\"content_block_stop\",\"index\":0}");
            event(out, "message_delta", "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\","
                    + "\"stop_sequence\":null},\"usage\":{\"output_tokens\":" + COMPLETION_TOKENS + "}}");
            event(out, "message_stop", "{\"type\":\"message_stop\"}");
        }
    }

    private static void data(OutputStream out, String data) throws IOException {
        out.write(("data: " + data + "\n\n").getBytes(StandardCharsets.UTF_8));
        out.flush();
    }

    private static void event(OutputStream out, String name, String data) throws IOException {
        out.write(("event: " + name + "\ndata: " + data + "\n\n").getBytes(StandardCharsets.UTF_8));
        out.flush();
    }

    private static void send(HttpExchange exchange, int status, String type, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", type);
        exchange.sendResponseHeaders(status, bytes.length);
        exchange.getResponseBody().write(bytes);
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}
