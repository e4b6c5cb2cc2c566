package dev.llmratelimit.observe;

import dev.llmratelimit.testsupport.RedisServerExtension;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.List;

/** The status page's budgets read from a real redis-server ({@code store=redis}). */
class RedisBudgetStatusTest extends BudgetStatusTest {

    @RegisterExtension
    static final RedisServerExtension REDIS = new RedisServerExtension();

    @Override
    protected List<String> storeLines() {
        return List.of("store=redis", "redis.address=" + REDIS.server().address());
    }
}
