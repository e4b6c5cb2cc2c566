package dev.llmratelimit.store.redis;

import dev.llmratelimit.config.RateLimitRuntime;
import dev.llmratelimit.engine.Admission;
import dev.llmratelimit.engine.Dimension;
import dev.llmratelimit.engine.CallerPlan;
import dev.llmratelimit.engine.GroupKind;
import dev.llmratelimit.testsupport.Plans;
import dev.llmratelimit.engine.Limit;
import dev.llmratelimit.engine.RateLimiter;
import dev.llmratelimit.identity.Caller;
import dev.llmratelimit.testsupport.RedisServerExtension;
import dev.llmratelimit.testsupport.RedisTestSettings;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.Map;

import static dev.llmratelimit.testsupport.Policies.properties;
import static org.assertj.core.api.Assertions.assertThat;
import static dev.llmratelimit.testsupport.Admits.admit;

/** The runtime with store=redis: caller and model counters in their own keys, all or nothing between them. */
class RedisCallerLimitsEngineTest {

    @RegisterExtension
    static final RedisServerExtension REDIS = new RedisServerExtension();

    private RateLimitRuntime runtime(String... lines) {
        Map<String, String> properties = properties(lines);
        properties.put("llm.ratelimit.store", "redis");
        properties.putAll(RedisTestSettings.properties(REDIS.server().address()));
        return RateLimitRuntime.create(properties, null);
    }

    private Object field(String key, String field) {
        return REDIS.server().call("HGET", key, field);
    }

    @Test
    void aRefusalLeavesTheModelHashAloneAndAPoolRefusalLeavesTheCallerHashAlone() {
        try (RateLimitRuntime runtime = runtime("models.m.rpm=10", "models.n.rpm=10",
                "models.m.reservation.prod=0.2", "saturation-threshold=0",
                "principals.alice.priority=prod", "principals.alice.rpm-limit=3")) {
            RateLimiter limiter = runtime.limiter();
            Caller alice = runtime.callerResolver().resolve(() -> "alice");
            CallerPlan plan = runtime.callerLimits().planFor(alice);
            String callerKey = "llmrl:{k.YWxpY2U}";                                     // base64url("alice")
            String modelM = GroupKeys.modelKey("llmrl:", "m");

            admit(limiter, "m", alice.teamPriority(), alice.ownPriority(), plan).abort();
            admit(limiter, "m", alice.teamPriority(), alice.ownPriority(), plan).abort();
            Admission poolRefused = admit(limiter, "m", alice.teamPriority(), alice.ownPriority(), plan);
            assertThat(poolRefused.verdict().refusedBy()).isEqualTo(Limit.POOL_REQUESTS);
            assertThat(field(callerKey, "r")).isEqualTo("2");                 // all or nothing: not counted
            assertThat(field(modelM, "r")).isEqualTo("2");

            admit(limiter, "n", alice.teamPriority(), alice.ownPriority(), plan).abort();
            Admission callerRefused = admit(limiter, "m", alice.teamPriority(), alice.ownPriority(), plan);
            assertThat(callerRefused.refusal().dimension()).isEqualTo(Dimension.REQUESTS);
            assertThat(callerRefused.refusal().current()).isEqualTo(3);
            assertThat(field(modelM, "r")).isEqualTo("2");
            assertThat(field(modelM, "r:prod")).isEqualTo("2");
            assertThat(field(callerKey, "r")).isEqualTo("3");
        }
    }

    @Test
    void eachCallerHasItsOwnHashTagAndNamesCannotBreakIt() {
        GroupKeys team = GroupKeys.of("llmrl:", Plans.caller(GroupKind.TEAM, "a}{b", 1, 0, 1, 60_000));
        assertThat(team.hash()).isEqualTo("llmrl:{t.YX17Yg}");
        assertThat(team.slots()).isEqualTo(team.hash() + ":s");
        assertThat(team.tag()).isEqualTo("{t.YX17Yg}");
        GroupKeys otherTeam = GroupKeys.of("llmrl:", Plans.caller(GroupKind.TEAM, "b", 1, 0, 0, 60_000));
        assertThat(otherTeam.tag()).isNotEqualTo(team.tag());
        assertThat(otherTeam.slots()).isNull();                                         // no parallel limit
        GroupKeys sameNameAsKey = GroupKeys.of("llmrl:", Plans.caller(GroupKind.KEY, "a}{b", 1, 0, 0, 60_000));
        assertThat(sameNameAsKey.hash()).isEqualTo("llmrl:{k.YX17Yg}");
    }
}
