package dev.llmratelimit.engine;

import dev.llmratelimit.store.memory.MemoryAdmissionStore;
import dev.llmratelimit.testsupport.MutableClock;
import dev.llmratelimit.usage.Usage;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static dev.llmratelimit.testsupport.Admits.admit;
import static dev.llmratelimit.testsupport.Policies.policy;

/**
 * Priorities asking a model for tokens on a clock the run moves: every tick of 1/100 of the window
 * each priority that has arrived sends its requests (10 tokens each, reserved and then used in
 * full), and what was served is summed per priority per window. Windows are counted from the first
 * request, as the model's own windows are.
 */
final class FairnessRun {

    static final int TICKS_PER_WINDOW = 100;
    static final long TOKENS_PER_REQUEST = 10;

    /** A priority, when it arrives (tick) and how many requests it sends every {@code every} ticks. */
    record Asker(String priority, int arrivesAt, int requests, int every) {
        /** Asks twice a model of {@code tpm} tokens a window, from tick {@code arrivesAt} on. */
        static Asker twiceCapacity(String priority, int arrivesAt, long tpm) {
            return new Asker(priority, arrivesAt, (int) (2 * tpm / TICKS_PER_WINDOW / TOKENS_PER_REQUEST), 1);
        }
    }

    private final long windowMillis = 60_000;
    private final MutableClock clock = new MutableClock();
    private final RateLimiter limiter;
    private final List<Asker> askers;
    /** Per priority, tokens served per tick. */
    private final Map<String, long[]> served = new LinkedHashMap<>();

    FairnessRun(List<String> settings, List<Asker> askers, int windows) {
        List<String> lines = new ArrayList<>(settings);
        lines.add("token-admission=reserve");
        lines.add("window=60s");
        this.limiter = new RateLimiter(policy(lines.toArray(String[]::new)), new MemoryAdmissionStore(clock));
        this.askers = askers;
        askers.forEach(asker -> served.put(asker.priority(), new long[windows * TICKS_PER_WINDOW]));
        run(windows * TICKS_PER_WINDOW);
    }

    private void run(int ticks) {
        for (int tick = 0; tick < ticks; tick++) {
            for (Asker asker : askers) {
                if (tick >= asker.arrivesAt() && (tick - asker.arrivesAt()) % asker.every() == 0) {
                    for (int r = 0; r < asker.requests(); r++) {
                        Admission admission = admit(limiter, "m", asker.priority(), null, 5, 5);
                        if (admission.outcome() == Admission.Outcome.ADMITTED) {
                            admission.complete(new Usage(5, 5, 0));
                            served.get(asker.priority())[tick] += TOKENS_PER_REQUEST;
                        }
                    }
                }
            }
            clock.advance(Duration.ofMillis(windowMillis / TICKS_PER_WINDOW));
        }
    }

    /** Tokens served to a priority in the window of 100 ticks from {@code fromTick}. */
    long servedFrom(String priority, int fromTick) {
        long sum = 0;
        long[] ticks = served.get(priority);
        for (int tick = fromTick; tick < Math.min(ticks.length, fromTick + TICKS_PER_WINDOW); tick++) {
            sum += ticks[tick];
        }
        return sum;
    }

    /** Tokens served to a priority in the model's window {@code window} (0 the first). */
    long servedIn(String priority, int window) {
        return servedFrom(priority, window * TICKS_PER_WINDOW);
    }

    /** Tokens served to every priority in the model's window {@code window}. */
    long servedIn(int window) {
        return served.keySet().stream().mapToLong(priority -> servedIn(priority, window)).sum();
    }
}
