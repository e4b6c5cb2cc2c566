package dev.llmratelimit.bench;

import dev.llmratelimit.chat.ChatRequest;
import dev.llmratelimit.chat.InvalidChatRequestException;
import dev.llmratelimit.usage.EndpointShape;
import dev.llmratelimit.usage.RequestPromptTokens;
import dev.llmratelimit.usage.TokenCounter;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

/**
 * Part 7: what hostile bodies cost. Tokenizer throughput on prose and on random letters
 * (one long "word", the worst case for BPE), the prompt estimate of a 1 MiB body (tokenized) and a
 * 4 MiB one (over the cap: the byte bound), with the bytes they allocate and the peak heap above the
 * baseline; and the cost of reading a body the one way every application would beside a
 * plain single reading, on a typical 2 KB body and a 1 MiB one, ASCII and not; and the prompt estimate
 * of a 2 KB and a 1 MiB body of every endpoint shape beside the messages-only estimate it replaced.
 */
final class HostileInputCost {

    /** The readings of a body that declares no charset: servlet readers' ISO-8859-1 and frameworks' UTF-8. */
    private static final List<Charset> NO_CHARSET_READINGS = List.of(StandardCharsets.ISO_8859_1, StandardCharsets.UTF_8);

    record Throughput(String text, double megabytesPerSecond) {
    }

    record PromptEstimate(String body, long tokens, double millis, long allocatedBytes, long peakHeapBytes) {
    }

    record ReadingCost(String body, double singleMicros, double agreedMicros) {
    }

    /** The estimate of one shape's body beside the messages-only estimate of a chat body of the same size. */
    record ShapeEstimate(String body, int bytes, long tokens, double micros, double baselineMicros) {
    }

    record Result(List<Throughput> throughput, List<PromptEstimate> prompts, List<ReadingCost> readings,
                  List<ShapeEstimate> shapes) {
    }

    /** Calls of each shape's estimate (2 KB body) before any is timed: enough for the JIT's top tier. */
    private static final int WARM_UP_CALLS = 2_000;
    private static final int MEASURED_BATCHES = 7;

    private final BenchSettings settings;
    private final TokenCounter counter = TokenCounter.forModel("gpt-4o");

    HostileInputCost(BenchSettings settings) {
        this.settings = settings;
    }

    Result measure() throws InvalidChatRequestException {
        String prose = "The quick brown fox jumps over the lazy dog, and the dog does not mind. ".repeat(15_000);
        String letters = randomLetters(1 << 20);
        List<Throughput> throughput = List.of(throughput("prose (1 MiB)", prose), throughput("random letters (1 MiB)", letters));
        List<PromptEstimate> prompts = List.of(
                prompt("1 MiB of random letters (tokenized)", body(randomLetters(TokenCounter.EXACT_COUNT_LIMIT_BYTES - 200))),
                prompt("4 MiB of random letters (over the cap: byte bound)", body(randomLetters(4 << 20))));
        List<ReadingCost> readings = List.of(
                reading("2 KB, ASCII", body("Hello there, how are you? ".repeat(75))),
                reading("2 KB, with non-ASCII text", body("Grüße, 你好, ça va? ".repeat(100))),
                reading("1 MiB, ASCII", body("Hello there, how are you? ".repeat(40_000))),
                reading("1 MiB, with non-ASCII text", body("Grüße, 你好, ça va? ".repeat(40_000))));
        warmUpShapeEstimates();
        List<ShapeEstimate> shapes = new ArrayList<>();
        for (int size : new int[] {2_000, TokenCounter.EXACT_COUNT_LIMIT_BYTES - 4_096}) {
            for (EndpointShape shape : EndpointShape.values()) {
                shapes.add(shapeEstimate(shape, size));
            }
        }
        return new Result(throughput, prompts, readings, shapes);
    }

    /** Prose with some non-ASCII words, the text every shape's body carries. */
    private static String text(int length) {
        String words = "The quick brown fox jumps over the lazy dog; Grüße, 你好, ça va? Call get_weather(city). ";
        return words.repeat(length / words.length() + 1).substring(0, length);
    }

    /**
     * A body of the shape of about {@code size} bytes, its text spread over every kind of input field the
     * shape has: system or instructions, messages or items, a tool's description and schema, a tool call.
     */
    static byte[] shapeBody(EndpointShape shape, int size) {
        byte[] first = shapeBody(shape, text(size / 4 - 60));
        return shapeBody(shape, text((int) ((size / 4 - 60) * (long) size / first.length)));
    }

    private static byte[] shapeBody(EndpointShape shape, String quarter) {
        String tool = "{\"name\":\"get_weather\",\"description\":\"" + quarter + "\"";
        String body = switch (shape) {
            case CHAT -> "{\"model\":\"gpt-4o\",\"messages\":[{\"role\":\"system\",\"content\":\"" + quarter + "\"},"
                    + "{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"" + quarter + "\"}]},"
                    + "{\"role\":\"assistant\",\"tool_calls\":[{\"id\":\"c1\",\"type\":\"function\",\"function\":"
                    + "{\"name\":\"get_weather\",\"arguments\":\"" + quarter + "\"}}]}],"
                    + "\"tools\":[{\"type\":\"function\",\"function\":" + tool + ",\"parameters\":{\"type\":\"object\"}}}]}";
            case COMPLETIONS -> "{\"model\":\"gpt-4o\",\"prompt\":[\"" + quarter + "\",\"" + quarter + "\",\"" + quarter
                    + "\"],\"suffix\":\"" + quarter + "\"}";
            case EMBEDDINGS -> "{\"model\":\"gpt-4o\",\"input\":[\"" + quarter + "\",\"" + quarter + "\",\"" + quarter
                    + "\",\"" + quarter + "\"]}";
            case RESPONSES -> "{\"model\":\"gpt-4o\",\"instructions\":\"" + quarter + "\",\"input\":[{\"role\":\"user\","
                    + "\"content\":[{\"type\":\"input_text\",\"text\":\"" + quarter + "\"}]},{\"type\":\"function_call\","
                    + "\"call_id\":\"c1\",\"name\":\"get_weather\",\"arguments\":\"" + quarter + "\"}],"
                    + "\"tools\":[{\"type\":\"function\"," + tool.substring(1) + ",\"parameters\":{}}]}";
            case MESSAGES -> "{\"model\":\"gpt-4o\",\"max_tokens\":300,\"system\":\"" + quarter + "\",\"messages\":["
                    + "{\"role\":\"user\",\"content\":\"" + quarter + "\"},{\"role\":\"assistant\",\"content\":[{\"type\":"
                    + "\"tool_use\",\"id\":\"t1\",\"name\":\"get_weather\",\"input\":{\"q\":\"" + quarter + "\"}}]}],"
                    + "\"tools\":[" + tool + ",\"input_schema\":{\"type\":\"object\"}}]}";
        };
        return body.getBytes(StandardCharsets.UTF_8);
    }

    /**
     * Runs every shape's estimate and the messages-only one until the JIT has compiled them, so that no
     * row pays for compiling code the later rows share: timed cold, whichever shape comes first takes
     * 1.6x to 2.2x its steady-state time.
     */
    private void warmUpShapeEstimates() {
        for (EndpointShape shape : EndpointShape.values()) {
            byte[] body = shapeBody(shape, 2_000);
            byte[] messagesOnly = messagesOnlyBody(body);
            for (int i = 0; i < WARM_UP_CALLS; i++) {
                RequestPromptTokens.count(counter, shape, body, body.length);
                MessagesOnlyEstimate.count(counter, messagesOnly, messagesOnly.length);
            }
        }
    }

    /** A chat body of the same size as {@code body} with all its text in one message. */
    private static byte[] messagesOnlyBody(byte[] body) {
        byte[] sized = body(text(body.length - 100));
        return body(text((int) ((body.length - 100) * (long) body.length / sized.length)));
    }

    private ShapeEstimate shapeEstimate(EndpointShape shape, int size) throws InvalidChatRequestException {
        byte[] body = shapeBody(shape, size);
        byte[] messagesOnly = messagesOnlyBody(body);
        int iterations = size > 100_000 ? 1 : 200;
        long tokens = RequestPromptTokens.count(counter, shape, body, body.length);
        Timing timing = micros(iterations, () -> RequestPromptTokens.count(counter, shape, body, body.length),
                () -> MessagesOnlyEstimate.count(counter, messagesOnly, messagesOnly.length));
        return new ShapeEstimate(shape.configName(), body.length, tokens, timing.first(), timing.second());
    }

    private static String randomLetters(int length) {
        Random random = new Random(12);
        char[] letters = new char[length];
        for (int i = 0; i < length; i++) {
            letters[i] = (char) ('a' + random.nextInt(26));
        }
        return new String(letters);
    }

    private static byte[] body(String content) {
        return ("{\"model\":\"gpt-4o\",\"stream\":true,\"max_tokens\":300,\"messages\":[{\"role\":\"user\",\"content\":\""
                + content + "\"}]}").getBytes(StandardCharsets.UTF_8);
    }

    private Throughput throughput(String name, String text) {
        int megabytes = text.getBytes(StandardCharsets.UTF_8).length;
        counter.count(text);                                           // warm-up
        double best = Double.MAX_VALUE;
        for (int round = 0; round < Math.max(2, settings.rounds()); round++) {
            long started = System.nanoTime();
            counter.count(text);
            best = Math.min(best, (System.nanoTime() - started) / 1e9);
        }
        return new Throughput(name, megabytes / (1 << 20) / best);
    }

    private PromptEstimate prompt(String name, byte[] body) {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        counter.promptTokens(body, body.length);                       // warm-up
        System.gc();
        long baseline = heapUsed();
        List<MemoryPoolMXBean> pools = Heap.pools();
        pools.forEach(MemoryPoolMXBean::resetPeakUsage);
        long allocatedBefore = threads.getCurrentThreadAllocatedBytes();
        long started = System.nanoTime();
        long tokens = counter.promptTokens(body, body.length);
        double millis = (System.nanoTime() - started) / 1e6;
        long allocated = threads.getCurrentThreadAllocatedBytes() - allocatedBefore;
        long peak = pools.stream().mapToLong(pool -> pool.getPeakUsage().getUsed()).sum();
        return new PromptEstimate(name, tokens, millis, allocated, Math.max(0, peak - baseline));
    }

    private static long heapUsed() {
        return Heap.pools().stream().mapToLong(pool -> pool.getUsage().getUsed()).sum();
    }

    private ReadingCost reading(String name, byte[] body) throws InvalidChatRequestException {
        int iterations = body.length > 100_000 ? 20 * settings.rounds() + 20 : 2_000 * settings.rounds() + 2_000;
        Timing timing = micros(iterations, () -> ChatRequest.parse(body, body.length),
                () -> ChatRequest.parse(body, body.length, NO_CHARSET_READINGS));
        return new ReadingCost(name + " (" + body.length + " bytes)", timing.first(), timing.second());
    }

    private interface Parse {
        Object run() throws InvalidChatRequestException;
    }

    /** Microseconds per call of two things timed side by side. */
    private record Timing(double first, double second) {
    }

    /**
     * The medians of {@value #MEASURED_BATCHES} batches of each, after one batch of each as warm-up; the
     * batches alternate, so that a neighbour's build on this shared machine slows both alike rather than
     * only the one timed while it ran.
     */
    private static Timing micros(int iterations, Parse first, Parse second) throws InvalidChatRequestException {
        double[] firstBatches = new double[MEASURED_BATCHES + 1];
        double[] secondBatches = new double[MEASURED_BATCHES + 1];
        for (int batch = 0; batch < firstBatches.length; batch++) {
            firstBatches[batch] = batchMicros(iterations, first);
            secondBatches[batch] = batchMicros(iterations, second);
        }
        return new Timing(medianAfterFirst(firstBatches), medianAfterFirst(secondBatches));
    }

    private static double batchMicros(int iterations, Parse parse) throws InvalidChatRequestException {
        long started = System.nanoTime();
        for (int i = 0; i < iterations; i++) {
            parse.run();
        }
        return (System.nanoTime() - started) / 1e3 / iterations;
    }

    private static double medianAfterFirst(double[] batches) {
        double[] measured = Arrays.copyOfRange(batches, 1, batches.length);
        Arrays.sort(measured);
        return measured[measured.length / 2];
    }

    static void write(Report report, Result result) {
        report.heading("7. Hostile input")
                .paragraph("Tokenizer throughput (`TokenCounter.count`, o200k_base, text cut in pieces of at most "
                        + "384 characters): random letters are one long word, the worst case for BPE (the whole 1 MiB "
                        + "as one piece took about 2 s before the pieces).");
        List<List<String>> rows = new ArrayList<>();
        for (Throughput t : result.throughput()) {
            rows.add(List.of(t.text(), Report.fixed(t.megabytesPerSecond(), 1)));
        }
        report.table(List.of("text", "MB/s"), rows);
        report.paragraph("Prompt estimate of a chat body (`TokenCounter.promptTokens`, one thread): allocated bytes are "
                + "exact (the thread's allocation counter); the peak heap is the heap pools' peak above the baseline "
                + "after a GC (indicative). Bodies over " + TokenCounter.EXACT_COUNT_LIMIT_BYTES + " bytes are not "
                + "tokenized: their estimate is the byte bound `TokenCounter.upperBound`.");
        rows = new ArrayList<>();
        for (PromptEstimate p : result.prompts()) {
            rows.add(List.of(p.body(), Long.toString(p.tokens()), Report.fixed(p.millis(), 1),
                    Report.fixed(p.allocatedBytes() / 1048576.0, 1), Report.fixed(p.peakHeapBytes() / 1048576.0, 1)));
        }
        report.table(List.of("body", "estimate (tokens)", "ms", "allocated MiB", "peak heap MiB"), rows);
        report.paragraph("Reading a body's decision fields: once from its bytes (`ChatRequest.parse(body, length)`), "
                + "and the one-reading check the filter runs for a body that declares no charset (strict decoding, "
                + "then the ISO-8859-1 and UTF-8 readings an application may use; a reading that is the same text "
                + "is not parsed again).");
        rows = new ArrayList<>();
        for (ReadingCost r : result.readings()) {
            rows.add(List.of(r.body(), Report.fixed(r.singleMicros(), 1), Report.fixed(r.agreedMicros(), 1)));
        }
        report.table(List.of("body", "one reading (µs)", "all readings agreed (µs)"), rows);
        report.paragraph("Prompt estimate of each endpoint shape (`RequestPromptTokens.count`, one thread): the body's "
                + "text is spread over every kind of input field the shape has (system or instructions, messages or "
                + "items, a tool's description, a tool call). Beside it, the former estimate, which read only "
                + "`messages[].content`, of a chat body of the same size with all its text in one message. Both run "
                + WARM_UP_CALLS + " times per shape before any is timed (JIT warm-up), then in alternating batches; "
                + "each figure is the median of " + MEASURED_BATCHES + " batches.");
        rows = new ArrayList<>();
        double worst = 0;
        String worstRow = "";
        for (ShapeEstimate e : result.shapes()) {
            double ratio = e.micros() / e.baselineMicros();
            rows.add(List.of(e.body(), Integer.toString(e.bytes()), Long.toString(e.tokens()), Report.fixed(e.micros(), 1),
                    Report.fixed(e.baselineMicros(), 1), Report.fixed(ratio, 2)));
            if (ratio > worst) {
                worst = ratio;
                worstRow = e.body() + ", " + e.bytes() + " bytes";
            }
        }
        report.table(List.of("shape", "bytes", "estimate (tokens)", "µs", "messages-only µs", "ratio"), rows)
                .target("the prompt estimate of every shape at most 1.5x the messages-only estimate of a body of the "
                        + "same size", worst <= 1.5, "at most " + Report.ratio(worst) + ", " + worstRow)
                .endTargets();
    }

    /** Runs this part alone: {@code quick|full}; prints its section of BENCHMARKS.md. */
    public static void main(String[] args) throws Exception {
        Report report = new Report();
        write(report, new HostileInputCost(BenchSettings.of(args.length > 0 ? args[0] : "quick")).measure());
        System.out.println(report.body());
    }
}
