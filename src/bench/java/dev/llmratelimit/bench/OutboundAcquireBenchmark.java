package dev.llmratelimit.bench;

import dev.llmratelimit.outbound.OutboundLimiter;
import dev.llmratelimit.outbound.Tokens;
import io.github.bucket4j.Bandwidth;
import io.github.bucket4j.Bucket;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

import java.time.Duration;

/**
 * JMH: one outbound call's bookkeeping in memory (acquire both buckets, settle to the real usage) beside two
 * local Bucket4j buckets taken one after the other (which know nothing of settling). Limits are high
 * enough that nothing waits within a run (Bucket4j refills at most one token per nanosecond).
 */
@State(Scope.Benchmark)
public class OutboundAcquireBenchmark {

    private static final long RPM = 1_000_000_000L;
    private static final long TPM = 50_000_000_000L;
    /** 100 prompt tokens and a 200-token output cap, settled to 150 out. */
    private static final Tokens ESTIMATE = new Tokens(100, 200);
    private static final Tokens USED = new Tokens(100, 150);

    private OutboundLimiter limiter;
    private Bucket requests;
    private Bucket tokens;

    @Setup
    public void setUp() {
        limiter = OutboundLimiter.builder()
                .provider("openai", p -> p.rpm(RPM).tpm(TPM).maxWait(Duration.ZERO)).build();
        requests = Bucket.builder().addLimit(minute(RPM)).build();
        tokens = Bucket.builder().addLimit(minute(TPM)).build();
    }

    private static Bandwidth minute(long capacity) {
        return Bandwidth.builder().capacity(capacity).refillGreedy(capacity, Duration.ofMinutes(1)).build();
    }

    @Benchmark
    public Object outboundAcquireAndSettle() throws InterruptedException {
        return limiter.acquire("openai", "gpt-4o", ESTIMATE).settle(USED);
    }

    @Benchmark
    public boolean bucket4jTwoBuckets() {
        return requests.tryConsume(1) && tokens.tryConsume(300);
    }
}
