package dev.llmratelimit.engine;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.assertj.core.api.Assertions.assertThat;

class RequestIdTest {

    /** Another store's record: the Redis store keeps one type, the memory store another. */
    private record OtherStoresRecord(long[] windowEnds) {
    }

    @Test
    void aStoreTakesOnlyARecordOfItsOwnTypeAndOnlyOnce() {
        RequestId id = RequestId.of("r");
        long[] applied = {1, 2};
        id.keep(applied);

        assertThat(id.take(OtherStoresRecord.class)).isNull();      // a local decision's record stays
        assertThat(id.take(long[].class)).isSameAs(applied);
        assertThat(id.take(long[].class)).isNull();
    }

    @Test
    void ofManyThreadsTakingOneRecordExactlyOneGetsIt() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            for (int round = 0; round < 1000; round++) {
                RequestId id = RequestId.of("r" + round);
                id.keep(new long[] {round});
                List<Callable<long[]>> takers = new ArrayList<>();
                for (int t = 0; t < 8; t++) {
                    takers.add(() -> id.take(long[].class));
                }
                int taken = 0;
                for (Future<long[]> result : pool.invokeAll(takers)) {
                    taken += result.get() == null ? 0 : 1;
                }
                assertThat(taken).isEqualTo(1);
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
