package dev.llmratelimit.servlet;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.llmratelimit.config.RateLimitRuntime;
import dev.llmratelimit.testsupport.FilterServer;
import dev.llmratelimit.testsupport.Http;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static dev.llmratelimit.testsupport.Policies.properties;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * docs/hostile-input.md: "one body, one reading", as a property over a seeded generator: bodies in every encoding
 * JSON parsers detect (UTF-8/16/32, with and without byte order mark) x declared charsets (none, the
 * UTFs and their aliases, single-byte charsets, an unknown name) x escaped keys and values x crafted
 * two-readings bodies. Two applications behind the filter read the body the way real ones do: Jackson
 * databind from {@code getInputStream()} (detecting the encoding itself) and Jackson databind from
 * {@code getReader()} (the declared charset, ISO-8859-1 when none). Whenever an application serves a
 * model other than the one the filter counted, the filter must have answered 400 instead.
 */
class OneReadingPropertyTest {

    private static final long SEED = 20261201L;
    private static final int RANDOM_CASES = 700;

    /** Every name the generator writes is configured with its own rpm, so the filter's reading shows in a header. */
    private static final List<String> MODELS = List.of("gpt-4o-mini", "gpt-4o", "cheap", "caf\u00e9", "\u6a21\u578b-1",
            "caf\u00c3\u00a9");
    private static final String UNCONFIGURED = "unconfigured-free";
    private static final int RPM_BASE = 1_000_000;

    private static final List<String> ENCODINGS = List.of("UTF-8", "UTF-8 BOM", "UTF-16LE", "UTF-16BE", "UTF-16LE BOM",
            "UTF-16BE BOM", "UTF-32LE", "UTF-32BE", "UTF-32LE BOM", "UTF-32BE BOM");
    private static final List<String> DECLARED = java.util.Arrays.asList(null, "utf-8", "UTF8", "unicode-1-1-utf-8",
            "UTF-16", "utf-16le", "UTF-16BE", "UnicodeLittleUnmarked", "UTF-32", "UTF-32LE", "ISO-8859-1", "latin1",
            "windows-1252", "US-ASCII", "Shift_JIS", "IBM037", "x-no-such-charset");

    private static FilterServer server;
    private static final ObjectMapper MAPPER = new ObjectMapper();

    /** Serves the model it read, in a header; 422 when it could not read one (nothing served). */
    static final class ReadingApplication extends HttpServlet {
        @Override
        protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
            String model;
            try {
                JsonNode body = request.getRequestURI().startsWith("/reader")
                        ? MAPPER.readTree(request.getReader()) : MAPPER.readTree(request.getInputStream());
                model = body.path("model").asText(null);
            } catch (IOException | RuntimeException e) {
                model = null;
            }
            if (model == null) {
                response.setStatus(422);
                return;
            }
            response.setHeader("x-app-model", escape(model));
            response.setContentType("application/json");
            response.getOutputStream().write("{\"id\":\"1\",\"choices\":[],\"usage\":{\"prompt_tokens\":1,\"completion_tokens\":1}}"
                    .getBytes(StandardCharsets.UTF_8));
        }
    }

    @BeforeAll
    static void start() throws Exception {
        List<String> lines = new ArrayList<>(List.of("paths=/stream/v1/chat/completions,/reader/v1/chat/completions"));
        for (int i = 0; i < MODELS.size(); i++) {
            lines.add("models.\"" + MODELS.get(i) + "\".rpm=" + (RPM_BASE + i));
        }
        Map<String, String> config = properties(lines.toArray(String[]::new));
        server = new FilterServer(RateLimitRuntime.create(config, null), Map.of(), new ReadingApplication(),
                "/stream/v1/chat/completions", "/reader/v1/chat/completions");
    }

    @AfterAll
    static void stop() throws Exception {
        server.close();
    }

    record Case(String description, byte[] body, String declared) {
    }

    @Test
    void anApplicationNeverServesAModelOtherThanTheOneTheFilterCounted() {
        Random random = new Random(SEED);
        List<Case> cases = new ArrayList<>();
        for (int i = 0; i < RANDOM_CASES; i++) {
            cases.add(randomCase(random));
        }
        for (String declared : DECLARED) {
            for (String[] models : new String[][] {{"gpt-4o-mini", "cheap"}, {"gpt-4o", UNCONFIGURED}}) {
                cases.add(new Case("shifted UTF-16LE two-readings body", shiftedTwoReadings(models[0], models[1]), declared));
            }
        }
        int served = 0;
        int refused = 0;
        List<String> violations = new ArrayList<>();
        for (Case c : cases) {
            for (String application : new String[] {"/stream", "/reader"}) {
                HttpResponse<String> response = send(application, c);
                if (isFilterRefusal(response)) {
                    refused++;
                    continue;
                }
                String appModel = Http.header(response, "x-app-model");
                if (appModel == null) {
                    continue;                   // the application could not read a model: nothing served
                }
                served++;
                String filterModel = filterModel(response);
                if (!unescape(appModel).equals(filterModel) && (filterModel != null || MODELS.contains(unescape(appModel)))) {
                    violations.add(application + " served " + appModel + ", the filter counted " + filterModel + ": "
                            + c.description() + ", declared " + c.declared());
                }
            }
        }
        assertThat(violations).isEmpty();
        // the generator reaches both sides: bodies served (and counted right) and bodies refused
        assertThat(served).as("served").isGreaterThan(150);
        assertThat(refused).as("refused").isGreaterThan(150);
    }

    /** UTF-8 bodies without a byte order mark, declared as UTF-8 or not at all, with ASCII models: all served. */
    @Test
    void wellFormedBodiesAreAllServed() {
        Random random = new Random(SEED + 1);
        for (int i = 0; i < 150; i++) {
            String model = MODELS.get(random.nextInt(2));
            String json = randomJson(random, model);
            for (String declared : java.util.Arrays.asList(null, "utf-8", "UTF-8")) {
                Case c = new Case(json, json.getBytes(StandardCharsets.UTF_8), declared);
                for (String application : new String[] {"/stream", "/reader"}) {
                    HttpResponse<String> response = send(application, c);
                    if (declared == null && application.equals("/reader") && !isAscii(json)) {
                        // the servlet default charset reads mojibake in the text, but the same fields
                        assertThat(response.statusCode()).as(json).isEqualTo(200);
                        continue;
                    }
                    assertThat(response.statusCode()).as(json).isEqualTo(200);
                    assertThat(unescape(Http.header(response, "x-app-model"))).isEqualTo(model);
                    assertThat(filterModel(response)).isEqualTo(model);
                }
            }
        }
    }

    private static HttpResponse<String> send(String application, Case c) {
        return Http.send(server.http().request(application + "/v1/chat/completions", null)
                .setHeader("Content-Type", "application/json" + (c.declared() == null ? "" : "; charset=" + c.declared()))
                .POST(HttpRequest.BodyPublishers.ofByteArray(c.body())).build());
    }

    private static boolean isFilterRefusal(HttpResponse<String> response) {
        return response.statusCode() == 400 && response.body().contains("\"type\":\"invalid_request_error\"")
                && Http.header(response, "x-app-model") == null;
    }

    /** The configured model the filter counted (its rpm shows which), or null for an unconfigured one. */
    private static String filterModel(HttpResponse<String> response) {
        String limit = Http.header(response, "x-ratelimit-limit-requests");
        return limit == null ? null : MODELS.get(Integer.parseInt(limit) - RPM_BASE);
    }

    private static Case randomCase(Random random) {
        String model = random.nextInt(8) == 0 ? UNCONFIGURED : MODELS.get(random.nextInt(MODELS.size()));
        String json = randomJson(random, model);
        String encoding = ENCODINGS.get(random.nextInt(ENCODINGS.size()));
        String declared = DECLARED.get(random.nextInt(DECLARED.size()));
        return new Case(encoding + " " + json, encode(json, encoding), declared);
    }

    /** A chat body with the model (key and value possibly escaped), a pad of mixed text, fields in random order. */
    static String randomJson(Random random, String model) {
        List<String> fields = new ArrayList<>();
        fields.add("\"" + maybeEscape(random, "model") + "\":\"" + maybeEscape(random, model) + "\"");
        fields.add("\"messages\":[{\"role\":\"user\",\"content\":\"" + randomText(random) + "\"}]");
        if (random.nextBoolean()) {
            fields.add("\"pad\":\"" + randomText(random) + "\"");
        }
        if (random.nextBoolean()) {
            fields.add("\"" + maybeEscape(random, "stream") + "\":" + random.nextBoolean());
        }
        java.util.Collections.shuffle(fields, random);
        return "{" + String.join(random.nextBoolean() ? "," : " ,\n ", fields) + "}";
    }

    /** Pieces of text: ASCII, Latin-1, CJK, characters whose UTF-16 bytes hold ASCII, surrogate pairs, escapes. */
    private static final String[] TEXT_PIECES = {
        "abc", "fox jumps", " ", "\u00e9", "\u00e0\u00fc", "\u00df", "\u00c3\u00a9", "\u4f60\u597d", "\u6a21\u578b",
        "\u2200", "\u6d00", "\u2c00", "\u3a00", "\u00ff\u00fe", "\u0080", "\u00c0", "\ud83c\udf0d", "\ud83d\ude00",
        "\\\"", "\\\\", "\\/", "\\n", "\\u0041", "\\u00e9", "\u8000", "\u5c00", "\u7b00", "\ufeff", "\u00a5"};

    private static String randomText(Random random) {
        StringBuilder text = new StringBuilder();
        int pieces = random.nextInt(10);
        for (int i = 0; i < pieces; i++) {
            text.append(TEXT_PIECES[random.nextInt(TEXT_PIECES.length)]);
        }
        return text.toString();
    }

    /** Escapes each character with probability 1/4 as backslash-u (mixed-case hex). */
    private static String maybeEscape(Random random, String text) {
        if (random.nextInt(3) > 0) {
            return text;
        }
        StringBuilder escaped = new StringBuilder();
        for (char c : text.toCharArray()) {
            escaped.append(random.nextInt(4) == 0 ? String.format(random.nextBoolean() ? "\\u%04x" : "\\u%04X", (int) c) : c);
        }
        return escaped.toString();
    }

    /**
     * A UTF-16LE body that a byte-detecting application reads as {@code appModel}, while text one byte
     * out of step (what decoding it as ISO-8859-1 and re-encoding it as UTF-8 yields) reads as
     * {@code otherModel}: each character {@code c << 8} becomes {@code c} once shifted.
     */
    static byte[] shiftedTwoReadings(String appModel, String otherModel) {
        StringBuilder text = new StringBuilder("{\"pad\":\"\u8000");
        for (char c : ("\",\"model\":\"" + otherModel + "\",\"z\":\"x").toCharArray()) {
            text.append((char) (c << 8));
        }
        text.append("\",\"model\":\"").append(appModel).append("\",\"q\":\"\u00c0\"}");
        return text.toString().getBytes(StandardCharsets.UTF_16LE);
    }

    static byte[] encode(String text, String encoding) {
        boolean bom = encoding.endsWith(" BOM");
        String charset = bom ? encoding.substring(0, encoding.length() - 4) : encoding;
        return ((bom ? "\uFEFF" : "") + text).getBytes(Charset.forName(charset));
    }

    private static boolean isAscii(String text) {
        return text.chars().allMatch(c -> c < 0x80);
    }

    /** Header values are ASCII: the model travels escaped. */
    static String escape(String text) {
        StringBuilder escaped = new StringBuilder();
        for (char c : text.toCharArray()) {
            escaped.append(c >= 0x20 && c < 0x7F && c != '%' ? String.valueOf(c) : String.format("%%%04x", (int) c));
        }
        return escaped.toString();
    }

    static String unescape(String text) {
        StringBuilder plain = new StringBuilder();
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '%') {
                plain.append((char) Integer.parseInt(text.substring(i + 1, i + 5), 16));
                i += 4;
            } else {
                plain.append(c);
            }
        }
        return plain.toString();
    }
}
