package dev.llmratelimit.store.redis;

import dev.llmratelimit.engine.GroupKind;
import dev.llmratelimit.engine.Plan;
import dev.llmratelimit.engine.Settlement;
import dev.llmratelimit.testsupport.RedisServer;
import dev.llmratelimit.testsupport.RedisServerExtension;
import dev.llmratelimit.testsupport.RedisTestSettings;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.Map;
import java.util.TreeMap;

import static dev.llmratelimit.testsupport.Plans.again;
import static dev.llmratelimit.testsupport.Plans.caller;
import static dev.llmratelimit.testsupport.Plans.modelPlan;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The commands the scripts run per request (admitted, then settled with its usage), as redis-server
 * counts them ({@code INFO commandstats} after {@code CONFIG RESETSTAT}): a model with a pool, and
 * the same with a key (requests per window and parallel slots) and a team (tokens per window).
 */
class RedisCommandsPerRequestTest {

    @RegisterExtension
    static final RedisServerExtension REDIS = new RedisServerExtension();

    private static final int REQUESTS = 200;

    @Test
    void aModelAndItsPoolCostTwoEvalshaAndSevenCommandsInTheScripts() {
        Plan plan = modelPlan("m", "prod", 1_000_000, 1_000_000, 900_000, 900_000, true, 0.5, 60_000, false, 500);
        Map<String, Long> calls = callsPerRequests(plan);
        assertThat(calls.remove("evalsha")).isEqualTo(2L * REQUESTS);
        assertThat(inScripts(calls)).as(calls.toString()).isEqualTo(7L * REQUESTS);
    }

    /**
     * Admitting: the marker, the clock, the key's slots (expired ones dropped, counted, taken, kept for
     * the lease), one read of each hash and a write of the two that count requests; settling: the
     * marker, the key's slot, one read and one write of the model's and the team's hash (the team's
     * tokens go into its live window, so the clock is read).
     */
    @Test
    void keyAndTeamLimitsRunInTheSameTwoEvalsha() {
        Plan plan = modelPlan("m", "prod", 1_000_000, 1_000_000, 900_000, 900_000, true, 0.5, 60_000, false, 500,
                caller(GroupKind.KEY, "sk-1", 1_000_000, 0, 4, 60_000),
                caller(GroupKind.TEAM, "team-a", 0, 1_000_000, 0, 60_000));
        Map<String, Long> calls = callsPerRequests(plan);
        assertThat(calls.remove("evalsha")).isEqualTo(2L * REQUESTS);
        assertThat(inScripts(calls)).as(calls.toString()).isEqualTo(18L * REQUESTS);
    }

    private static long inScripts(Map<String, Long> calls) {
        long sum = calls.values().stream().mapToLong(Long::longValue).sum();
        System.out.printf("commands run in the scripts per request: %.2f %s%n", sum / (double) REQUESTS, calls);
        return sum;
    }

    /** Every command the server ran (but the statistics' own) while REQUESTS requests were admitted and settled. */
    private static Map<String, Long> callsPerRequests(Plan plan) {
        RedisServer server = REDIS.server();
        try (RedisAdmissionStore store = RedisAdmissionStore.create(RedisTestSettings.forAddress(server.address()))) {
            Plan first = again(plan);
            store.decide(first);
            store.settle(first, Settlement.of(400, 0));     // the first calls load the scripts and start the windows
            server.call("CONFIG", "RESETSTAT");
            for (int i = 0; i < REQUESTS; i++) {
                Plan next = again(plan);
                assertThat(store.decide(next).admitted()).isTrue();
                store.settle(next, Settlement.of(400, 0));
            }
            Map<String, Long> calls = new TreeMap<>();
            for (String line : String.valueOf(server.call("INFO", "commandstats")).split("\r\n")) {
                if (line.startsWith("cmdstat_")) {
                    int colon = line.indexOf(':');
                    calls.put(line.substring("cmdstat_".length(), colon),
                            Long.parseLong(line.substring(colon + 1 + "calls=".length(), line.indexOf(',', colon))));
                }
            }
            calls.remove("config|resetstat");
            calls.remove("info");
            calls.remove("ping");
            return calls;
        }
    }
}
