package dev.llmratelimit.outbound;

import dev.llmratelimit.outbound.Correction.Figure;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class ProviderHeadersTest {

    private static final Instant NOW = Instant.parse("2026-12-01T20:00:00Z");

    @ParameterizedTest
    @CsvSource({"1s,1000", "6m0s,360000", "12ms,12", "4m12.172s,252172", "1h2m3s,3723000", "250us,1",
        "0,0", "0s,0", "1.5s,1500", "20ms,20", "99999h,86400000"})
    void goDurations(String text, long millis) {
        assertThat(GoDurations.parseMillis(text)).isEqualTo(millis);
    }

    @ParameterizedTest
    @CsvSource({"''", "s", "1x", "-1s", "1s2", "abc", "1..2s"})
    void notGoDurations(String text) {
        assertThat(GoDurations.parseMillis(text)).isEqualTo(-1);
    }

    @Test
    void openAiRemainingAndResets() {
        Map<String, String> headers = Map.of(
                "x-ratelimit-limit-requests", "60", "x-ratelimit-remaining-requests", "59",
                "x-ratelimit-reset-requests", "1s", "x-ratelimit-limit-tokens", "150000",
                "x-ratelimit-remaining-tokens", "149984", "x-ratelimit-reset-tokens", "6m0s");
        assertThat(ProviderHeaders.correction(headers::get, NOW))
                .isEqualTo(new Correction(new Figure(59, 1000), new Figure(149_984, 360_000), Figure.NONE, Figure.NONE,
                        Correction.NONE));
    }

    @Test
    void anthropicFiguresGoEachToItsOwnBucket() {
        Map<String, String> headers = Map.of(
                "anthropic-ratelimit-requests-remaining", "49",
                "anthropic-ratelimit-requests-reset", "2026-12-01T20:00:01Z",
                "anthropic-ratelimit-tokens-remaining", "90000",
                "anthropic-ratelimit-tokens-reset", "2026-12-01T20:00:30Z",
                "anthropic-ratelimit-input-tokens-remaining", "70000",
                "anthropic-ratelimit-input-tokens-reset", "2026-12-01T20:00:12.5Z",
                "anthropic-ratelimit-output-tokens-remaining", "80000",
                "anthropic-ratelimit-output-tokens-reset", "2026-12-01T20:00:20+00:00");
        assertThat(ProviderHeaders.correction(headers::get, NOW))
                .isEqualTo(new Correction(new Figure(49, 1000), new Figure(90_000, 30_000), new Figure(70_000, 12_500),
                        new Figure(80_000, 20_000), Correction.NONE));
    }

    @Test
    void inputAndOutputFiguresWithoutABucketOfTheirOwnLowerTheTokenBucket() {
        Correction headers = new Correction(Figure.NONE, new Figure(90_000, 30_000), new Figure(70_000, 12_500),
                new Figure(5_000, 20_000), Correction.NONE);
        // only a total: the least of the three (output's 5 000, with its reset) lowers it
        assertThat(headers.forLimits(new BucketLimits(50, 100_000, 1.0, 1.0)).tokens()).isEqualTo(new Figure(5_000, 20_000));
        // an output bucket of its own: the input figure (70 000) is below the total's (90 000)
        assertThat(headers.forLimits(new BucketLimits(50, 100_000, 0, 8_000, 1.0, 1.0)).tokens())
                .isEqualTo(new Figure(70_000, 12_500));
        // both of their own: the total's figure stays its own
        assertThat(headers.forLimits(new BucketLimits(50, 0, 100_000, 8_000, 1.0, 1.0))).isEqualTo(headers);
    }

    @Test
    void ofTwoFiguresLeftAlikeTheOneThatResetsLaterLowersTheBucket() {
        Correction headers = new Correction(Figure.NONE, new Figure(5_000, 12_000), Figure.NONE,
                new Figure(5_000, 45_000), Correction.NONE);
        assertThat(headers.forLimits(new BucketLimits(50, 100_000, 1.0, 1.0)).tokens()).isEqualTo(new Figure(5_000, 45_000));
        Correction reversed = new Correction(Figure.NONE, new Figure(5_000, 45_000), Figure.NONE,
                new Figure(5_000, 12_000), Correction.NONE);
        assertThat(reversed.forLimits(new BucketLimits(50, 100_000, 1.0, 1.0)).tokens()).isEqualTo(new Figure(5_000, 45_000));
        Map<String, String> both = Map.of("x-ratelimit-remaining-requests", "7", "x-ratelimit-reset-requests", "2s",
                "anthropic-ratelimit-requests-remaining", "7", "anthropic-ratelimit-requests-reset", NOW.plusSeconds(30).toString());
        assertThat(ProviderHeaders.correction(both::get, NOW).requests()).isEqualTo(new Figure(7, 30_000));
    }

    @Test
    void garbageAndNegativeFiguresCountAsAbsent() {
        Map<String, String> headers = Map.of("x-ratelimit-remaining-requests", "-5",
                "x-ratelimit-remaining-tokens", "lots", "x-ratelimit-reset-tokens", "soon",
                "anthropic-ratelimit-tokens-remaining", "99999999999999999999999");
        assertThat(ProviderHeaders.correction(headers::get, NOW)).isEqualTo(Correction.EMPTY);
    }

    @Test
    void aRemainingFigureWithoutAResetStillLowers() {
        assertThat(ProviderHeaders.correction(Map.of("x-ratelimit-remaining-tokens", "12")::get, NOW))
                .isEqualTo(new Correction(Figure.NONE, new Figure(12, Correction.NONE), Figure.NONE, Figure.NONE,
                        Correction.NONE));
    }

    @Test
    void retryAfterInMillisecondsSecondsOrAnHttpDate() {
        assertThat(ProviderHeaders.retryAfterMillis(Map.of("retry-after-ms", "1500", "retry-after", "9")::get, NOW)).isEqualTo(1500);
        assertThat(ProviderHeaders.retryAfterMillis(Map.of("retry-after", "20")::get, NOW)).isEqualTo(20_000);
        assertThat(ProviderHeaders.retryAfterMillis(Map.of("retry-after", "120")::get, NOW)).as("beyond 60 s too").isEqualTo(120_000);
        assertThat(ProviderHeaders.retryAfterMillis(Map.of("retry-after", "Tue, 01 Dec 2026 20:01:30 GMT")::get, NOW)).isEqualTo(90_000);
        assertThat(ProviderHeaders.retryAfterMillis(Map.of("retry-after", "Tue, 01 Dec 2026 19:00:00 GMT")::get, NOW)).isZero();
        assertThat(ProviderHeaders.retryAfterMillis(Map.of("retry-after", "later")::get, NOW)).isEqualTo(ProviderHeaders.DEFAULT_PAUSE_MILLIS);
        assertThat(ProviderHeaders.retryAfterMillis(Map.<String, String>of()::get, NOW)).isEqualTo(ProviderHeaders.DEFAULT_PAUSE_MILLIS);
        assertThat(ProviderHeaders.retryAfterMillis(Map.of("retry-after", "1e300")::get, NOW)).isEqualTo(GoDurations.MAX_MILLIS);
    }

    @Test
    void insufficientQuotaIsToldFromARateLimit() throws IOException {
        assertThat(errorBody("{\"error\":{\"message\":\"You exceeded your current quota\",\"type\":\"insufficient_quota\","
                + "\"param\":null,\"code\":\"insufficient_quota\"}}")).isTrue();
        assertThat(errorBody("{\"error\":{\"message\":\"Rate limit reached\",\"type\":\"requests\",\"code\":\"rate_limit_exceeded\"}}")).isFalse();
        assertThat(errorBody("<html>Too many</html>")).isFalse();
        assertThat(errorBody("")).isFalse();
    }

    private static boolean errorBody(String text) throws IOException {
        ErrorBody body = new ErrorBody();
        ByteArrayOutputStream passed = new ByteArrayOutputStream();
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        body.write(bytes, 0, bytes.length, passed);
        assertThat(passed.toByteArray()).isEqualTo(bytes);
        return body.insufficientQuota();
    }
}
