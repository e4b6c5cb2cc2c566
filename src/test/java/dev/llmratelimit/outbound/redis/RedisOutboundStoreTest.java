package dev.llmratelimit.outbound.redis;

import dev.llmratelimit.engine.StoreUnavailableException;
import dev.llmratelimit.outbound.BucketKey;
import dev.llmratelimit.outbound.BucketLimits;
import dev.llmratelimit.outbound.Grant;
import dev.llmratelimit.outbound.OutboundStore;
import dev.llmratelimit.outbound.OutboundStoreContract;
import dev.llmratelimit.outbound.Tokens;
import dev.llmratelimit.store.redis.RedissonClientFactory;
import dev.llmratelimit.testsupport.RedisServerExtension;
import dev.llmratelimit.testsupport.RedisTestSettings;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.redisson.api.RedissonClient;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The contract on a real redis-server; each further instance has its own Redisson client. */
class RedisOutboundStoreTest extends OutboundStoreContract {

    @RegisterExtension
    static final RedisServerExtension REDIS = new RedisServerExtension();

    /** Moves the server's view of time: every bucket's refill stamp and pause move back instead. */
    private static final String SHIFT = """
            for _, key in ipairs(redis.call('KEYS', ARGV[1])) do
              if redis.call('TYPE', key).ok == 'hash' then
                redis.call('HINCRBY', key, 'u', -tonumber(ARGV[2]))
                if tonumber(redis.call('HGET', key, 'p')) > 0 then
                  redis.call('HINCRBY', key, 'p', -tonumber(ARGV[2]))
                end
              end
            end
            return 0""";

    private final List<RedissonClient> clients = new ArrayList<>();
    private OutboundStore store;

    @AfterEach
    void closeInstances() {
        clients.forEach(RedissonClient::shutdown);
    }

    @Override
    protected OutboundStore store() {
        if (store == null) {
            store = RedisOutboundStore.using(REDIS.client(), "test:");
        }
        return store;
    }

    @Override
    protected OutboundStore anotherInstance() {
        RedissonClient client = RedissonClientFactory.create(RedisTestSettings.forAddress(REDIS.server().address()));
        clients.add(client);
        return RedisOutboundStore.using(client, "test:");
    }

    @Override
    protected void advance(Duration duration) {
        REDIS.server().call("EVAL", SHIFT, "0", "test:out:*", Long.toString(duration.toMillis()));
    }

    @Override
    protected long tolerance() {
        return 250;
    }

    @Test
    void oneHashPerPairInOneHashSlotWithItsPermitsBeside() {
        BucketLimits limits = new BucketLimits(60, 6000, 1.0, 1.0);
        store().acquire(new BucketKey("openai", "gpt-4o"), limits, "p1", new Tokens(100, 0), 0, 60_000).join();
        assertThat(REDIS.server().call("EXISTS", "test:out:{openai:gpt-4o}")).isEqualTo(1L);
        assertThat(REDIS.server().call("GET", "test:out:{openai:gpt-4o}:p:p1")).isEqualTo("100:0");
        assertThat((Long) REDIS.server().call("PTTL", "test:out:{openai:gpt-4o}")).isBetween(1L, 7_000L);
        store().acquire(new BucketKey("a", "{b}:c"), limits, "p2", new Tokens(100, 0), 0, 60_000).join();
        assertThat(REDIS.server().call("EXISTS", "test:out:{a:%7Bb%7D%3Ac}")).isEqualTo(1L);
    }

    @Test
    void afterARestartTheScriptsAreLoadedAgain() {
        BucketLimits limits = new BucketLimits(60, 6000, 1.0, 1.0);
        BucketKey key = new BucketKey("openai", "gpt-4o");
        assertThat(store().acquire(key, limits, "p1", new Tokens(100, 0), 0, 60_000).join()).isEqualTo(Grant.taken(0));
        REDIS.server().call("SCRIPT", "FLUSH");
        assertThat(store().settle(key, limits, "p1", new Tokens(50, 0), false).join()).isTrue();
    }

    @Test
    void aStoppedServerFailsTheFutureAsUnavailable() {
        OutboundStore instance = anotherInstance();
        REDIS.server().stop();
        BucketLimits limits = new BucketLimits(60, 6000, 1.0, 1.0);
        assertThatThrownBy(() -> instance.acquire(new BucketKey("openai", "gpt-4o"), limits, "p", new Tokens(1, 0), 0, 1000).join())
                .isInstanceOf(CompletionException.class).hasCauseInstanceOf(StoreUnavailableException.class);
    }
}
