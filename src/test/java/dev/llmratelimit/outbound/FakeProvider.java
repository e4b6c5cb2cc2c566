package dev.llmratelimit.outbound;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;

/**
 * A local provider with real limits: two token buckets (requests and tokens) of {@code burst} x one minute
 * of its RPM and TPM, refilled continuously, as OpenAI's and Anthropic's are, shared by its endpoints:
 * <ul>
 *   <li>OpenAI {@code /v1/chat/completions}: 429 with {@code retry-after-ms} and {@code x-ratelimit-*}
 *       headers past its limits, else 200 with the headers and a usage of {@value #PROMPT_TOKENS} prompt
 *       tokens and half of {@code max_tokens} (default 20) completion tokens, as JSON or as an event stream
 *       (with the usage event when asked for);</li>
 *   <li>OpenAI {@code /v1/embeddings}: {@value #EMBEDDING_TOKENS_PER_INPUT} prompt token per input;</li>
 *   <li>Anthropic {@code /v1/messages}: the same figures as {@code input_tokens} and {@code output_tokens},
 *       with {@code anthropic-ratelimit-*} headers (RFC 3339 resets), and 429 with {@code retry-after} in
 *       whole seconds and a {@code rate_limit_error}; a stream carries the usage in {@code message_start}
 *       and {@code message_delta}.</li>
 * </ul>
 * With {@link #limitInputAndOutput} it also limits input and output tokens per minute apart, as Anthropic does
 * (ITPM, OTPM), and names them in its {@code anthropic-ratelimit-input-tokens-*} and {@code -output-tokens-*}
 * headers. It records every request it sees, per window, and every body.
 */
public final class FakeProvider implements AutoCloseable {

    public static final int PROMPT_TOKENS = 8;
    /** A chat request of 8 prompt tokens asking for at most 40 (the provider answers 20). */
    public static final String CHAT = "{\"model\":\"gpt-4o\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"max_tokens\":40}";
    /** The same, streamed, without asking for usage. */
    public static final String STREAM = "{\"model\":\"gpt-4o\",\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"max_tokens\":40}";
    /** What an embeddings call costs per string of its input. */
    public static final int EMBEDDING_TOKENS_PER_INPUT = 1;
    /** The {@code retry-after-ms} of a scripted 429 (Anthropic's {@code retry-after}: the same in seconds). */
    public static final long SCRIPTED_RETRY_MILLIS = 2_000;
    private static final JsonFactory JSON = new JsonFactory();

    private final HttpServer server;
    private final LongSupplier nanos;
    private final double requestCapacity;
    private final double tokenCapacity;
    private final double requestsPerNano;
    private final double tokensPerNano;
    private final long windowNanos;
    private final long start;
    private double requests;
    private double tokens;
    private long updatedAt;
    /** Input and output buckets, index 0 and 1; capacity 0: not limited. */
    private final double[] sideCapacity = new double[2];
    private final double[] sidePerNano = new double[2];
    private final double[] side = new double[2];

    private final Map<Long, long[]> perWindow = new TreeMap<>();
    private final AtomicInteger tooMany = new AtomicInteger();
    private final AtomicInteger served = new AtomicInteger();
    private final ConcurrentLinkedQueue<String> bodies = new ConcurrentLinkedQueue<>();
    private final ConcurrentLinkedQueue<String> scripted = new ConcurrentLinkedQueue<>();
    private volatile Clock wallClock = Clock.systemUTC();

    /**
     * @param burst       each bucket's capacity in minutes of refill (OpenAI: 1; tests: a fraction, to run in seconds)
     * @param windowNanos the length of the windows it counts per
     */
    public FakeProvider(long rpm, long tpm, double burst, long windowNanos, LongSupplier nanos) throws IOException {
        this.nanos = nanos;
        this.requestCapacity = rpm * burst;
        this.tokenCapacity = tpm * burst;
        this.requestsPerNano = rpm / 60e9;
        this.tokensPerNano = tpm / 60e9;
        this.windowNanos = windowNanos;
        this.start = nanos.getAsLong();
        this.requests = requestCapacity;
        this.tokens = tokenCapacity;
        this.updatedAt = start;
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 200);
        server.setExecutor(Executors.newFixedThreadPool(16));
        server.createContext("/v1/chat/completions", exchange -> handle(exchange, Api.CHAT));
        server.createContext("/v1/embeddings", exchange -> handle(exchange, Api.EMBEDDINGS));
        server.createContext("/v1/messages", exchange -> handle(exchange, Api.MESSAGES));
        server.start();
    }

    public FakeProvider(long rpm, long tpm, double burst) throws IOException {
        this(rpm, tpm, burst, 60_000_000_000L, System::nanoTime);
    }

    public String baseUrl() {
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/v1";
    }

    /** The next answers, in order, instead of the limits' own: "429" (rate limit) or "quota" (insufficient_quota). */
    public void script(String... answers) {
        scripted.addAll(List.of(answers));
    }

    /** The clock Anthropic's reset instants are written on: the limiter's, when a test moves its clock. */
    public void resetsAgainst(Clock clock) {
        this.wallClock = clock;
    }

    /** Limits input and output tokens per minute too, each in a bucket of {@code burst} minutes of refill. */
    public synchronized FakeProvider limitInputAndOutput(long itpm, long otpm, double burst) {
        refill();
        long[] perMinute = {itpm, otpm};
        for (int i = 0; i < 2; i++) {
            sideCapacity[i] = perMinute[i] * burst;
            sidePerNano[i] = perMinute[i] / 60e9;
            side[i] = sideCapacity[i];
        }
        return this;
    }

    /** Spends capacity as another client of the same account would: the limiter cannot see it. */
    public synchronized void spendElsewhere(long requestCount) {
        refill();
        requests -= requestCount;
    }

    public int tooManyRequests() {
        return tooMany.get();
    }

    public int served() {
        return served.get();
    }

    public List<String> bodies() {
        return List.copyOf(bodies);
    }

    /** Requests, tokens, input tokens and output tokens served in each window, in order. */
    public synchronized List<long[]> perWindow() {
        List<long[]> windows = new ArrayList<>();
        perWindow.values().forEach(w -> windows.add(w.clone()));
        return windows;
    }

    private enum Api { CHAT, EMBEDDINGS, MESSAGES }

    private void handle(HttpExchange exchange, Api api) throws IOException {
        try (exchange) {
            byte[] body = exchange.getRequestBody().readAllBytes();
            String text = new String(body, StandardCharsets.UTF_8);
            bodies.add(text);
            Request request = Request.parse(body);
            String answer = scripted.poll();
            if ("quota".equals(answer)) {
                tooMany.incrementAndGet();
                send(exchange, 429, "application/json", "{\"error\":{\"message\":\"You exceeded your current quota\","
                        + "\"type\":\"insufficient_quota\",\"param\":null,\"code\":\"insufficient_quota\"}}");
                return;
            }
            long prompt = api == Api.EMBEDDINGS ? (long) EMBEDDING_TOKENS_PER_INPUT * request.inputs : PROMPT_TOKENS;
            long completion = api == Api.EMBEDDINGS ? 0 : request.maxTokens / 2;
            long cost = prompt + completion;
            boolean admitted;
            long remainingRequests;
            long remainingTokens;
            long retryMillis;
            long[] sideCost = {prompt, completion};
            long[] sideRemaining = new long[2];
            synchronized (this) {
                refill();
                admitted = !"429".equals(answer) && requests >= 1 && tokens >= cost
                        && sideRoom(0, prompt) && sideRoom(1, completion);
                if (admitted) {
                    requests -= 1;
                    tokens -= cost;
                    for (int i = 0; i < 2; i++) {
                        side[i] -= sideCapacity[i] > 0 ? sideCost[i] : 0;
                    }
                    long[] window = perWindow.computeIfAbsent((nanos.getAsLong() - start) / windowNanos, w -> new long[4]);
                    window[0]++;
                    window[1] += cost;
                    window[2] += prompt;
                    window[3] += completion;
                }
                remainingRequests = (long) Math.max(0, Math.floor(requests));
                remainingTokens = (long) Math.max(0, Math.floor(tokens));
                double retryNanos = Math.max((1 - requests) / requestsPerNano, (cost - tokens) / tokensPerNano);
                for (int i = 0; i < 2; i++) {
                    sideRemaining[i] = (long) Math.max(0, Math.floor(side[i]));
                    if (sideCapacity[i] > 0) {
                        retryNanos = Math.max(retryNanos, (sideCost[i] - side[i]) / sidePerNano[i]);
                    }
                }
                retryMillis = "429".equals(answer) ? SCRIPTED_RETRY_MILLIS : (long) Math.ceil(retryNanos / 1e6);
            }
            if (api == Api.MESSAGES) {
                anthropicHeaders(exchange, remainingRequests, remainingTokens, sideRemaining);
            } else {
                headers(exchange, remainingRequests, remainingTokens);
            }
            if (!admitted) {
                tooMany.incrementAndGet();
                if (api == Api.MESSAGES) {
                    exchange.getResponseHeaders().set("retry-after", Long.toString(Math.max(1, (retryMillis + 999) / 1000)));
                    send(exchange, 429, "application/json", "{\"type\":\"error\",\"error\":{\"type\":\"rate_limit_error\","
                            + "\"message\":\"Number of requests has exceeded your rate limit\"}}");
                } else {
                    exchange.getResponseHeaders().set("retry-after-ms", Long.toString(Math.max(1, retryMillis)));
                    send(exchange, 429, "application/json", "{\"error\":{\"message\":\"Rate limit reached\","
                            + "\"type\":\"requests\",\"param\":null,\"code\":\"rate_limit_exceeded\"}}");
                }
                return;
            }
            served.incrementAndGet();
            switch (api) {
                case CHAT -> chat(exchange, request, prompt, completion);
                case EMBEDDINGS -> send(exchange, 200, "application/json", embeddings(request, prompt));
                case MESSAGES -> messages(exchange, request, prompt, completion);
            }
        }
    }

    private void chat(HttpExchange exchange, Request request, long prompt, long completion) throws IOException {
        String usage = "{\"prompt_tokens\":" + prompt + ",\"completion_tokens\":" + completion
                + ",\"total_tokens\":" + (prompt + completion) + "}";
        if (request.stream) {
            stream(exchange, request, usage);
        } else {
            send(exchange, 200, "application/json", "{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion\","
                    + "\"created\":1,\"model\":\"" + request.model + "\",\"choices\":[{\"index\":0,\"message\":"
                    + "{\"role\":\"assistant\",\"content\":\"hello\"},\"finish_reason\":\"stop\"}],\"usage\":" + usage + "}");
        }
    }

    private void stream(HttpExchange exchange, Request request, String usage) throws IOException {
        exchange.getResponseHeaders().set("Content-Type", "text/event-stream");
        exchange.sendResponseHeaders(200, 0);
        try (OutputStream out = exchange.getResponseBody()) {
            for (int i = 0; i < 3; i++) {
                out.write(("data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\""
                        + request.model + "\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"word \"},"
                        + "\"finish_reason\":null}]}\n\n").getBytes(StandardCharsets.UTF_8));
                out.flush();
            }
            if (request.includeUsage) {
                out.write(("data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\""
                        + request.model + "\",\"choices\":[],\"usage\":" + usage + "}\n\n").getBytes(StandardCharsets.UTF_8));
            }
            out.write("data: [DONE]\n\n".getBytes(StandardCharsets.UTF_8));
        }
    }

    private static String embeddings(Request request, long prompt) {
        StringBuilder data = new StringBuilder();
        for (int i = 0; i < request.inputs; i++) {
            data.append(i == 0 ? "" : ",").append("{\"object\":\"embedding\",\"index\":").append(i)
                    .append(",\"embedding\":[0.25,0.5,0.75]}");
        }
        return "{\"object\":\"list\",\"data\":[" + data + "],\"model\":\"" + request.model
                + "\",\"usage\":{\"prompt_tokens\":" + prompt + ",\"total_tokens\":" + prompt + "}}";
    }

    private void messages(HttpExchange exchange, Request request, long prompt, long completion) throws IOException {
        if (!request.stream) {
            send(exchange, 200, "application/json", "{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\","
                    + "\"model\":\"" + request.model + "\",\"content\":[{\"type\":\"text\",\"text\":\"hello\"}],"
                    + "\"stop_reason\":\"end_turn\",\"stop_sequence\":null,"
                    + "\"usage\":{\"input_tokens\":" + prompt + ",\"output_tokens\":" + completion + "}}");
            return;
        }
        exchange.getResponseHeaders().set("Content-Type", "text/event-stream");
        exchange.sendResponseHeaders(200, 0);
        try (OutputStream out = exchange.getResponseBody()) {
            event(out, "message_start", "{\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\","
                    + "\"role\":\"assistant\",\"model\":\"" + request.model + "\",\"content\":[],\"stop_reason\":null,"
                    + "\"stop_sequence\":null,\"usage\":{\"input_tokens\":" + prompt + ",\"output_tokens\":1}}}");
            event(out, "content_block_start", "{\"type\":\"content_block_start\",\"index\":0,"
                    + "\"content_block\":{\"type\":\"text\",\"text\":\"\"}}");
            for (int i = 0; i < 3; i++) {
                event(out, "content_block_delta", "{\"type\":\"content_block_delta\",\"index\":0,"
                        + "\"delta\":{\"type\":\"text_delta\",\"text\":\"word \"}}");
            }
            event(out, "content_block_stop", "{\"type\":\"content_block_stop\",\"index\":0}");
            event(out, "message_delta", "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\","
                    + "\"stop_sequence\":null},\"usage\":{\"output_tokens\":" + completion + "}}");
            event(out, "message_stop", "{\"type\":\"message_stop\"}");
        }
    }

    private static void event(OutputStream out, String name, String data) throws IOException {
        out.write(("event: " + name + "\ndata: " + data + "\n\n").getBytes(StandardCharsets.UTF_8));
        out.flush();
    }

    private void headers(HttpExchange exchange, long remainingRequests, long remainingTokens) {
        var headers = exchange.getResponseHeaders();
        headers.set("x-ratelimit-limit-requests", Long.toString((long) requestCapacity));
        headers.set("x-ratelimit-remaining-requests", Long.toString(remainingRequests));
        headers.set("x-ratelimit-reset-requests", goDuration((requestCapacity - remainingRequests) / requestsPerNano));
        headers.set("x-ratelimit-limit-tokens", Long.toString((long) tokenCapacity));
        headers.set("x-ratelimit-remaining-tokens", Long.toString(remainingTokens));
        headers.set("x-ratelimit-reset-tokens", goDuration((tokenCapacity - remainingTokens) / tokensPerNano));
    }

    private boolean sideRoom(int i, long cost) {
        return sideCapacity[i] == 0 || side[i] >= cost;
    }

    private void anthropicHeaders(HttpExchange exchange, long remainingRequests, long remainingTokens, long[] sideRemaining) {
        var headers = exchange.getResponseHeaders();
        Instant now = wallClock.instant();
        headers.set("anthropic-ratelimit-requests-limit", Long.toString((long) requestCapacity));
        headers.set("anthropic-ratelimit-requests-remaining", Long.toString(remainingRequests));
        headers.set("anthropic-ratelimit-requests-reset",
                now.plusNanos((long) ((requestCapacity - remainingRequests) / requestsPerNano)).toString());
        headers.set("anthropic-ratelimit-tokens-limit", Long.toString((long) tokenCapacity));
        headers.set("anthropic-ratelimit-tokens-remaining", Long.toString(remainingTokens));
        headers.set("anthropic-ratelimit-tokens-reset",
                now.plusNanos((long) ((tokenCapacity - remainingTokens) / tokensPerNano)).toString());
        String[] names = {"input-tokens", "output-tokens"};
        for (int i = 0; i < 2; i++) {
            if (sideCapacity[i] > 0) {
                headers.set("anthropic-ratelimit-" + names[i] + "-limit", Long.toString((long) sideCapacity[i]));
                headers.set("anthropic-ratelimit-" + names[i] + "-remaining", Long.toString(sideRemaining[i]));
                headers.set("anthropic-ratelimit-" + names[i] + "-reset",
                        now.plusNanos((long) ((sideCapacity[i] - sideRemaining[i]) / sidePerNano[i])).toString());
            }
        }
    }

    /** As Go prints a duration: {@code 1m0.5s}, {@code 12ms}, {@code 0s}. */
    static String goDuration(double nanos) {
        long millis = (long) Math.ceil(nanos / 1e6);
        if (millis <= 0) {
            return "0s";
        }
        if (millis < 1000) {
            return millis + "ms";
        }
        long minutes = millis / 60_000;
        double seconds = (millis % 60_000) / 1000.0;
        String s = (seconds == Math.floor(seconds) ? Long.toString((long) seconds) : Double.toString(seconds)) + "s";
        return minutes > 0 ? minutes + "m" + s : s;
    }

    private static void send(HttpExchange exchange, int status, String type, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", type);
        exchange.sendResponseHeaders(status, bytes.length);
        exchange.getResponseBody().write(bytes);
    }

    private void refill() {
        long now = nanos.getAsLong();
        long elapsed = now - updatedAt;
        if (elapsed > 0) {
            requests = Math.min(requestCapacity, requests + elapsed * requestsPerNano);
            tokens = Math.min(tokenCapacity, tokens + elapsed * tokensPerNano);
            for (int i = 0; i < 2; i++) {
                side[i] = Math.min(sideCapacity[i], side[i] + elapsed * sidePerNano[i]);
            }
            updatedAt = now;
        }
    }

    @Override
    public void close() {
        server.stop(0);
        ((java.util.concurrent.ExecutorService) server.getExecutor()).shutdownNow();
    }

    /** @param inputs the strings of an embeddings input */
    private record Request(String model, boolean stream, boolean includeUsage, long maxTokens, int inputs) {
        static Request parse(byte[] body) throws IOException {
            String model = "";
            boolean stream = false;
            boolean includeUsage = false;
            long maxTokens = 20;
            int inputs = 0;
            try (JsonParser p = JSON.createParser(body)) {
                p.nextToken();
                while (p.nextToken() == JsonToken.FIELD_NAME) {
                    String field = p.currentName();
                    JsonToken value = p.nextToken();
                    switch (field) {
                        case "model" -> model = p.getText();
                        case "stream" -> stream = value == JsonToken.VALUE_TRUE;
                        case "max_tokens", "max_completion_tokens" -> maxTokens = p.getLongValue();
                        case "stream_options" -> {
                            while (p.nextToken() == JsonToken.FIELD_NAME) {
                                String option = p.currentName();
                                includeUsage |= p.nextToken() == JsonToken.VALUE_TRUE && option.equals("include_usage");
                            }
                        }
                        case "input" -> {
                            if (value == JsonToken.START_ARRAY) {
                                while (p.nextToken() != JsonToken.END_ARRAY) {
                                    inputs++;
                                    p.skipChildren();
                                }
                            } else {
                                inputs = 1;
                            }
                        }
                        default -> p.skipChildren();
                    }
                }
            }
            return new Request(model, stream, includeUsage, maxTokens, inputs);
        }
    }
}
