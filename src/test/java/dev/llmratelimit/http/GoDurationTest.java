package dev.llmratelimit.http;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** OpenAI's reset headers as Go prints durations, so that clients parsing Go durations read them. */
class GoDurationTest {

    @Test
    void formatsAsGoDoes() {
        assertThat(GoDuration.format(-5)).isEqualTo("0s");
        assertThat(GoDuration.format(0)).isEqualTo("0s");
        assertThat(GoDuration.format(1)).isEqualTo("1ms");
        assertThat(GoDuration.format(12)).isEqualTo("12ms");
        assertThat(GoDuration.format(999)).isEqualTo("999ms");
        assertThat(GoDuration.format(1_000)).isEqualTo("1s");
        assertThat(GoDuration.format(1_005)).isEqualTo("1.005s");
        assertThat(GoDuration.format(1_050)).isEqualTo("1.05s");
        assertThat(GoDuration.format(1_500)).isEqualTo("1.5s");
        assertThat(GoDuration.format(59_999)).isEqualTo("59.999s");
        assertThat(GoDuration.format(60_000)).isEqualTo("1m0s");
        assertThat(GoDuration.format(360_000)).isEqualTo("6m0s");
        assertThat(GoDuration.format(90_500)).isEqualTo("1m30.5s");
        assertThat(GoDuration.format(3_600_000)).isEqualTo("1h0m0s");
        assertThat(GoDuration.format(3_723_004)).isEqualTo("1h2m3.004s");
        assertThat(GoDuration.format(90_000_000)).isEqualTo("25h0m0s");
    }
}
