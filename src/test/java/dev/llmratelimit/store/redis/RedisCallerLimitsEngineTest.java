package dev.llmratelimit.store.redis;

import dev.llmratelimit.config.RateLimitRuntime;
import dev.llmratelimit.engine.Admission;
import dev.llmratelimit.engine.CallerCounter;
import dev.llmratelimit.engine.CallerLimitType;
import dev.llmratelimit.engine.CallerPlan;
import dev.llmratelimit.engine.CallerScope;
import dev.llmratelimit.engine.Limit;
import dev.llmratelimit.engine.RateLimiter;
import dev.llmratelimit.identity.Caller;
import dev.llmratelimit.testsupport.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.Map;

import static dev.llmratelimit.testsupport.Policies.properties;
import static org.assertj.core.api.Assertions.assertThat;

/** The runtime with store=redis: caller and model counters in their own keys, all or nothing between them. */
class RedisCallerLimitsEngineTest {

    @RegisterExtension
    static final RedisServerExtension REDIS = new RedisServerExtension();

    private RateLimitRuntime runtime(String... lines) {
        Map<String, String> properties = properties(lines);
        properties.put("llm.ratelimit.store", "redis");
        properties.put(RedisStoreSettings.PREFIX + "address", REDIS.server().address());
        return RateLimitRuntime.create(properties, null);
    }

    private Object field(String key, String field) {
        return REDIS.server().call("HGET", key, field);
    }

    @Test
    void aCallerRefusalLeavesTheModelHashAloneAndAPoolRefusalLeavesTheCallerHashAlone() {
        try (RateLimitRuntime runtime = runtime("models.m.rpm=10", "models.n.rpm=10",
                "models.m.reservation.prod=0.2", "saturation-threshold=0",
                "principals.alice.priority=prod", "principals.alice.rpm-limit=3")) {
            RateLimiter limiter = runtime.limiter();
            Caller alice = runtime.callerResolver().resolve(() -> "alice");
            CallerPlan plan = runtime.callerLimits().planFor(alice);
            String callerKey = CallerKeys.counterKey("llmrl:", plan.counters().get(0));
            String modelM = ModelKeys.keyOf("llmrl:", "m");

            limiter.admit("m", alice.teamPriority(), alice.ownPriority(), plan).abort();
            limiter.admit("m", alice.teamPriority(), alice.ownPriority(), plan).abort();
            Admission poolRefused = limiter.admit("m", alice.teamPriority(), alice.ownPriority(), plan);
            assertThat(poolRefused.verdict().refusedBy()).isEqualTo(Limit.POOL_REQUESTS);
            assertThat(field(callerKey, "r")).isEqualTo("2");                 // compensated
            assertThat(field(modelM, "r")).isEqualTo("2");

            limiter.admit("n", alice.teamPriority(), alice.ownPriority(), plan).abort();
            Admission callerRefused = limiter.admit("m", alice.teamPriority(), alice.ownPriority(), plan);
            assertThat(callerRefused.callerRefusal().type()).isEqualTo(CallerLimitType.REQUESTS);
            assertThat(callerRefused.callerRefusal().current()).isEqualTo(3);
            assertThat(field(modelM, "r")).isEqualTo("2");
            assertThat(field(modelM, "r:prod")).isEqualTo("2");
            assertThat(field(callerKey, "r")).isEqualTo("3");
        }
    }

    @Test
    void callerKeysCarryTheirOwnHashTag() {
        String key = CallerKeys.counterKey("llmrl:", new CallerCounter(CallerScope.TEAM, "a}{b", 1, 0, 0));
        assertThat(key).startsWith("llmrl:{caller.limits}t");
        assertThat(key.indexOf('{', 7)).isEqualTo(-1);
        assertThat(key.indexOf('}', 21)).isEqualTo(-1);
        assertThat(CallerKeys.slotsKey(key)).isEqualTo(key + ":s");
    }
}
