package dev.llmratelimit.demo;

import dev.llmratelimit.config.RateLimitRuntime;
import dev.llmratelimit.servlet.RateLimitFilter;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.Map;

/**
 * The demo's endpoint (authentication filter and mock chat servlet) on 127.0.0.1, with or without
 * the rate-limit filter, configured from a map rather than {@code demo.properties}, so that a
 * benchmark can compare the two with nothing else differing.
 */
public final class BenchServer implements AutoCloseable {

    private final EmbeddedTomcat tomcat;
    private final RateLimitRuntime runtime;
    private final int port;

    private BenchServer(Map<String, String> rateLimitProperties, Map<String, String> apiKeys,
                        long promptTokens, long completionTokens, Duration latency) throws Exception {
        DemoSettings settings = new DemoSettings(apiKeys, promptTokens, completionTokens, latency, 5, Duration.ZERO);
        tomcat = new EmbeddedTomcat(0).filter("demo-auth", new BearerKeyAuthFilter(apiKeys), "/*");
        runtime = rateLimitProperties == null ? null : RateLimitRuntime.create(rateLimitProperties, null);
        if (runtime != null) {
            tomcat.filter("llm-ratelimit", new RateLimitFilter(runtime), "/*");
        }
        tomcat.servlet("chat", new MockChatServlet(settings), "/v1/chat/completions");
        port = tomcat.start();
    }

    /**
     * @param rateLimitProperties the filter's {@code llm.ratelimit.*} properties, or {@code null} for no filter
     * @param apiKeys             bearer key to principal name
     * @param latency             how long the mock endpoint takes before it answers
     */
    public static BenchServer start(Map<String, String> rateLimitProperties, Map<String, String> apiKeys,
                                    long promptTokens, long completionTokens, Duration latency) throws Exception {
        return new BenchServer(rateLimitProperties, apiKeys, promptTokens, completionTokens, latency);
    }

    /** The filter's runtime, or {@code null} without the filter. */
    public RateLimitRuntime runtime() {
        return runtime;
    }

    public int port() {
        return port;
    }

    /** The CPU time the server's connector threads (acceptor, poller, request threads) have used so far. */
    public long cpuNanos() {
        String prefix = tomcat.threadNamePrefix();
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long total = 0;
        for (Thread thread : Thread.getAllStackTraces().keySet()) {
            if (thread.getName().startsWith(prefix)) {
                total += Math.max(0, threads.getThreadCpuTime(thread.getId()));
            }
        }
        return total;
    }

    @Override
    public void close() throws Exception {
        tomcat.close();
        if (runtime != null) {
            runtime.close();
        }
    }
}
