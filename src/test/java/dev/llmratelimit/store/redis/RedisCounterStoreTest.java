package dev.llmratelimit.store.redis;

import dev.llmratelimit.engine.Admission;
import dev.llmratelimit.engine.DecisionPlan;
import dev.llmratelimit.engine.Limit;
import dev.llmratelimit.engine.RateLimiter;
import dev.llmratelimit.engine.Verdict;
import dev.llmratelimit.policy.RateLimitPolicy;
import dev.llmratelimit.store.memory.MemoryCounterStore;
import dev.llmratelimit.testsupport.RedisServer;
import dev.llmratelimit.testsupport.RedisServerExtension;
import dev.llmratelimit.testsupport.RedisTestSettings;
import dev.llmratelimit.testsupport.RespClient;
import dev.llmratelimit.usage.Usage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import static dev.llmratelimit.testsupport.Policies.policy;
import static org.assertj.core.api.Assertions.assertThat;

class RedisCounterStoreTest {

    @RegisterExtension
    static final RedisServerExtension REDIS = new RedisServerExtension();

    /** Model m: 2 requests and 1000 tokens per minute, no reservations. */
    private static final DecisionPlan PLAN = new DecisionPlan("m", "default", 0, 1, 2, 1000, 0, 0, false, 0.5, 60_000);

    private RedisCounterStore store;

    @BeforeEach
    void createStore() {
        store = RedisCounterStore.create(RedisTestSettings.forAddress(REDIS.server().address()));
    }

    @AfterEach
    void closeStore() {
        store.close();
    }

    @Test
    void everyDecisionAndRecordingIsOneEvalshaAndNothingElse() {
        RedisServer server = REDIS.server();
        DecisionPlan plan = new DecisionPlan("m", "prod", 1, 2, 1_000_000, 1_000_000, 900_000, 900_000, true, 0.5, 60_000);
        store.decide(plan);
        store.record(plan, 1);      // the first calls load the scripts
        server.call("CONFIG", "RESETSTAT");
        int n = 200;
        List<String> clientCommands = new ArrayList<>();
        try (RespClient monitor = server.connect()) {
            assertThat(monitor.call("MONITOR")).isEqualTo("OK");
            for (int i = 0; i < n; i++) {
                store.decide(plan);
                store.record(plan, 3);
            }
            server.call("ECHO", "end-of-measurement");
            for (String line = (String) monitor.read(); !line.contains("end-of-measurement"); line = (String) monitor.read()) {
                if (!line.contains(" lua] ")) {     // commands the scripts run appear as "[0 lua]"
                    clientCommands.add(line.substring(line.indexOf("] ") + 2));
                }
            }
        }
        String decideSha = RedisCounterStore.DECIDE.sha();
        String recordSha = RedisCounterStore.RECORD.sha();
        // Redisson pings each pooled connection every 30 s to keep it alive; those are not ours.
        clientCommands.removeIf(command -> command.equals("\"PING\"") || command.equals("\"ping\""));
        assertThat(clientCommands).hasSize(2 * n);
        assertThat(clientCommands).filteredOn(c -> c.startsWith("\"EVALSHA\" \"" + decideSha + "\"")).hasSize(n);
        assertThat(clientCommands).filteredOn(c -> c.startsWith("\"EVALSHA\" \"" + recordSha + "\"")).hasSize(n);
        assertThat(commandStats(server)).containsEntry("evalsha", (long) 2 * n);
        assertThat(server.call("HMGET", store.keyOf("m"), "r", "r:prod", "t", "t:prod"))
                .isEqualTo(List.of("201", "201", "601", "601"));
    }

    @Test
    void theWindowStartsWithTheFirstDecisionAndItsKeyEndsWithIt() {
        RedisServer server = REDIS.server();
        DecisionPlan plan = new DecisionPlan("m", "prod", 1, 2, 2, 1000, 2, 1000, true, 0.5, 1500);
        Verdict first = store.decide(plan);
        assertThat(first.admitted()).isTrue();
        assertThat(first.resetMillis()).isBetween(1L, 1500L);
        long ttl = (Long) server.call("PTTL", store.keyOf("m"));
        assertThat(ttl).isBetween(1L, 1500L);
        String windowEnd = (String) server.call("HGET", store.keyOf("m"), "e");

        assertThat(store.decide(plan).requestRemaining()).isZero();
        assertThat(store.decide(plan).refusedBy()).isEqualTo(Limit.MODEL_REQUESTS);
        store.record(plan, 7);
        assertThat(server.call("HGET", store.keyOf("m"), "e")).isEqualTo(windowEnd);
        assertThat((Long) server.call("PTTL", store.keyOf("m"))).isBetween(1L, ttl);
        assertThat(server.call("HMGET", store.keyOf("m"), "t", "t:prod")).isEqualTo(List.of("7", "7"));

        awaitGone(server, store.keyOf("m"));
        Verdict fresh = store.decide(plan);
        assertThat(fresh.admitted()).isTrue();
        assertThat(fresh.requestRemaining()).isEqualTo(1);
        assertThat(fresh.tokenRemaining()).isEqualTo(1000);
        assertThat(server.call("HGET", store.keyOf("m"), "e")).isNotEqualTo(windowEnd);
    }

    @Test
    void aSlidingWindowFollowsOnAndKeepsThePreviousCountersUntilTheyStopCounting() {
        RedisServer server = REDIS.server();
        DecisionPlan plan = new DecisionPlan("m", "prod", 1, 2, 10, 1000, 5, 500, true, 0.5, 1000, true);
        Verdict first = store.decide(plan, 100);
        assertThat((Long) server.call("PTTL", store.keyOf("m"))).isBetween(1001L, 2000L);   // one window more
        assertThat(server.call("HMGET", store.keyOf("m"), "r", "t", "t:prod")).isEqualTo(List.of("1", "100", "100"));

        sleep(first.resetMillis() + 20);
        Verdict next = store.decide(plan, 50);
        assertThat(next.windowEnd()).isEqualTo(first.windowEnd() + 1000);                      // no gap
        assertThat(server.call("HMGET", store.keyOf("m"), "pr", "pt", "pr:prod", "pt:prod", "r", "t", "t:prod"))
                .isEqualTo(List.of("1", "100", "1", "100", "1", "50", "50"));
        store.record(plan, -30, first.windowEnd());                                            // into the previous window
        store.record(plan, -500, next.windowEnd());                                            // clamped at 0
        assertThat(server.call("HMGET", store.keyOf("m"), "pt", "pt:prod", "t", "t:prod"))
                .isEqualTo(List.of("70", "70", "0", "0"));
    }

    @Test
    void aRecordingWithoutLiveWindowStartsOne() {
        DecisionPlan plan = new DecisionPlan("m", "prod", 1, 2, 10, 1000, 5, 500, true, 0.5, 60_000);
        store.record(plan, 400);
        Verdict generous = store.decide(plan);
        assertThat(generous.strict()).isFalse();
        assertThat(generous.tokenRemaining()).isEqualTo(600);
        assertThat(generous.resetMillis()).isBetween(1L, 60_000L);

        store.record(plan, 100);
        Verdict strict = store.decide(plan);
        assertThat(strict.saturation()).isEqualTo(0.5);
        assertThat(strict.refusedBy()).isEqualTo(Limit.POOL_TOKENS);
        assertThat(strict.tokenLimit()).isEqualTo(500);
    }

    @Test
    void aFlushedScriptCacheIsReloadedAndTheDecisionRetried() {
        assertThat(store.decide(PLAN).requestRemaining()).isEqualTo(1);
        REDIS.server().call("SCRIPT", "FLUSH");
        REDIS.server().call("CONFIG", "RESETSTAT");

        assertThat(store.decide(PLAN).requestRemaining()).isZero();
        assertThat(scriptLoads(REDIS.server())).isEqualTo(1);
        assertThat(commandStats(REDIS.server())).containsEntry("evalsha", 2L);     // NOSCRIPT, then the retry
    }

    /** Random traffic on three models gets the same verdicts from Redis as from the memory store. */
    @Test
    void verdictsEqualThoseOfTheMemoryStore() {
        assertSameVerdictsAsMemory(store, false);
    }

    /** The same with reservations, refunds and corrections of random size. */
    @Test
    void reservedVerdictsEqualThoseOfTheMemoryStore() {
        try (RedisCounterStore reserving = RedisCounterStore.create(RedisStoreSettings.parse(Map.of(
                RedisStoreSettings.PREFIX + "address", REDIS.server().address(),
                RedisStoreSettings.PREFIX + "key-prefix", "reserve:")))) {
            assertSameVerdictsAsMemory(reserving, true);
        }
    }

    private static void assertSameVerdictsAsMemory(RedisCounterStore redisStore, boolean reserve) {
        RateLimitPolicy policy = policy("models.both.rpm=60", "models.both.tpm=4000",
                "models.requests.rpm=40", "models.tokens.tpm=3000",
                "reservation.prod=0.6", "reservation.dev=0.3", "default-priority=0.1", "saturation-threshold=0.4",
                "token-admission=" + (reserve ? "reserve" : "recorded"));
        RateLimiter memory = new RateLimiter(policy, new MemoryCounterStore());
        RateLimiter redis = new RateLimiter(policy, redisStore);
        Random random = new Random(42);
        String[] models = {"both", "requests", "tokens"};
        String[] priorities = {"prod", "dev", null, "unknown"};
        Set<Limit> refusedBy = EnumSet.noneOf(Limit.class);
        for (int i = 0; i < 600; i++) {
            String model = models[random.nextInt(models.length)];
            String priority = priorities[random.nextInt(priorities.length)];
            long prompt = reserve ? random.nextInt(150) : 0;
            long maxTokens = reserve && random.nextBoolean() ? random.nextInt(100) : RateLimiter.UNKNOWN_OUTPUT;
            Admission fromMemory = memory.admit(model, priority, null, prompt, maxTokens);
            Admission fromRedis = redis.admit(model, priority, null, prompt, maxTokens);
            assertThat(fromRedis.verdict()).as("decision %d", i)
                    .usingRecursiveComparison().ignoringFields("resetMillis", "windowEnd").isEqualTo(fromMemory.verdict());
            if (fromRedis.outcome() == Admission.Outcome.REFUSED) {
                refusedBy.add(fromRedis.verdict().refusedBy());
            } else if (reserve && random.nextInt(4) == 0) {
                fromMemory.abort();
                fromRedis.abort();
            } else {
                Usage usage = new Usage(random.nextInt(200), random.nextInt(100), 0);
                fromMemory.complete(usage);
                fromRedis.complete(usage);
            }
        }
        assertThat(refusedBy).containsExactlyInAnyOrder(Limit.values());  // refusals of every kind were compared
    }

    private static void awaitGone(RedisServer server, String key) {
        for (int i = 0; i < 300 && (Long) server.call("EXISTS", key) == 1; i++) {
            sleep(10);
        }
        assertThat(server.call("EXISTS", key)).isEqualTo(0L);
    }

    /** SCRIPT LOAD calls since the last CONFIG RESETSTAT (Redis 6 counts every SCRIPT subcommand as one). */
    static long scriptLoads(RedisServer server) {
        Map<String, Long> stats = commandStats(server);
        return stats.getOrDefault("script|load", stats.getOrDefault("script", 0L));
    }

    static Map<String, Long> commandStats(RedisServer server) {
        Map<String, Long> calls = new java.util.HashMap<>();
        for (String line : ((String) server.call("INFO", "commandstats")).split("\r\n")) {
            if (line.startsWith("cmdstat_")) {
                int colon = line.indexOf(':');
                int comma = line.indexOf(',');
                calls.put(line.substring("cmdstat_".length(), colon), Long.parseLong(line.substring(colon + "calls=".length() + 1, comma)));
            }
        }
        return calls;
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }
}
