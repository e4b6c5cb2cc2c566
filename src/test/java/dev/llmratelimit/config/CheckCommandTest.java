package dev.llmratelimit.config;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@code java -jar llm-ratelimit-filter.jar check FILE...} (docs/configuration-sources.md). */
class CheckCommandTest {

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int check(String... args) {
        return CheckCommand.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    /** The docs' 10 RPM example: prod 0.9, dev as rpm:1, nothing for callers without a priority. */
    @Test
    void printsThePolicyOfTheDocs10RpmProdDevExample() {
        assertThat(check("check", "config/litellm-priorities.yaml")).isZero();

        assertThat(out.toString(StandardCharsets.UTF_8)).isEqualTo("""
                Configuration: config/litellm-priorities.yaml
                store memory, window 60s fixed, rate-limit-type total, token-admission recorded, mode enforce, unknown models pass

                model   rpm  tpm  threshold  window  pool     share  pool rpm  pool tpm
                gpt-4o   10    -      50.0%     60s  default   0.0%         0         -
                                                     dev      10.0%         1         -
                                                     prod     90.0%         9         -
                Note: litellm_settings.priority_reservation_settings.saturation_check_cache_ttl is ignored: saturation is read in the same atomic step as every decision, never from a cache
                Note: Ignored (no rate-limit meaning here): litellm_settings.callbacks, model_list[].litellm_params.api_key, model_list[].litellm_params.model
                """);
        assertThat(err.toString(StandardCharsets.UTF_8)).isEmpty();
    }

    /** Properties over YAML, as at start-up: dev's 0.3 replaces the YAML's rpm:1, and 0.9 + 0.3 are normalised. */
    @Test
    void severalFilesMakeOneConfigurationWithPropertiesOverYaml(@TempDir Path dir) throws Exception {
        Path properties = Files.writeString(dir.resolve("app.properties"), """
                llm.ratelimit.models.gpt-4o.tpm=1000
                llm.ratelimit.reservation.dev=0.3
                llm.ratelimit.window=30s
                """);

        assertThat(check("check", properties.toString(), "config/litellm-priorities.yaml")).isZero();

        assertThat(out.toString(StandardCharsets.UTF_8)).contains("""
                model   rpm   tpm  threshold  window  pool     share  pool rpm  pool tpm
                gpt-4o   10  1000      50.0%     30s  default   0.0%         0         0
                                                      dev      25.0%         2       250
                                                      prod     75.0%         7       750
                """);
    }

    @Test
    void aModelWithoutReservationsShowsOnlyItsModelWideLimits(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("limits.properties"), "llm.ratelimit.models.\"gpt-4.1\".tpm=1000\n");

        assertThat(check("check", file.toString())).isZero();

        assertThat(out.toString(StandardCharsets.UTF_8)).endsWith("""
                model    rpm   tpm  threshold  window  pool  share  pool rpm  pool tpm
                gpt-4.1    -  1000      50.0%     60s  none      -         -         -
                """);
    }

    @Test
    void limitsBeyondRpmAndTpmAreListedByTheirNamesForTheModelAndEachPool(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("limits.properties"), """
                llm.ratelimit.models.claude.rpm=50
                llm.ratelimit.models.claude.itpm=30000
                llm.ratelimit.models.claude.otpm=8000
                llm.ratelimit.models.claude.limits.tokens.30d=50000000
                llm.ratelimit.models.small.tpm=1000
                llm.ratelimit.reservation.prod=0.5
                """);

        assertThat(check("check", file.toString())).isZero();

        assertThat(out.toString(StandardCharsets.UTF_8)).endsWith("""
                model   rpm   tpm  threshold  window  pool     share  pool rpm  pool tpm  more limits                                        pool more limits
                claude   50     -      50.0%     60s  default  25.0%        12         -  itpm 30000, otpm 8000, limits.tokens.30d 50000000  itpm 7500, otpm 2000, limits.tokens.30d 12500000
                                                      prod     50.0%        25         -                                                     itpm 15000, otpm 4000, limits.tokens.30d 25000000
                small     -  1000      50.0%     60s  default  25.0%         -       250  -                                                  -
                                                      prod     50.0%         -       500                                                     -
                """);
    }

    /** Exit status 1 with exactly the message start-up fails with; nothing on standard output. */
    @Test
    void anInvalidConfigurationExitsWithOneAndTheStartUpError(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("config.yaml"), """
                model_list:
                  - model_name: gpt-4o
                    litellm_params: {model: openai/gpt-4o, rpm: 10}
                litellm_settings:
                  priority_reservation:
                    prod: {type: tpm, value: 900}
                """);
        String startUpError = "Invalid configuration llm.ratelimit.reservation.prod=tpm:900.0: model 'gpt-4o' has no tpm configured";
        assertThatThrownBy(() -> RateLimitRuntime.create(Map.of(ConfigFiles.PROPERTY, file.toString()), null))
                .hasMessage(startUpError);

        assertThat(check("check", file.toString())).isEqualTo(1);

        assertThat(err.toString(StandardCharsets.UTF_8)).isEqualTo(startUpError + System.lineSeparator());
        assertThat(out.toString(StandardCharsets.UTF_8)).isEmpty();
    }

    @Test
    void storeSettingsAreCheckedWithoutConnecting(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("app.properties"), """
                llm.ratelimit.models.m.rpm=5
                llm.ratelimit.store=redis
                llm.ratelimit.redis.address=localhost:6379
                """);

        assertThat(check("check", file.toString())).isEqualTo(1);

        assertThat(err.toString(StandardCharsets.UTF_8)).isEqualTo("Invalid configuration llm.ratelimit.redis.address"
                + " (value not shown): expected redis://host:port or rediss://host:port" + System.lineSeparator());
    }

    @Test
    void anUnreadableFileExitsWithOneAndAWrongCommandLineWithTwo(@TempDir Path dir) {
        Path missing = dir.resolve("missing.yaml");
        assertThat(check("check", missing.toString())).isEqualTo(1);
        assertThat(err.toString(StandardCharsets.UTF_8))
                .startsWith("Invalid configuration llm.ratelimit.config-file=" + missing + ": cannot be read");

        err.reset();
        assertThat(check("check")).isEqualTo(2);
        assertThat(check("verify", "config/litellm-priorities.yaml")).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).isEqualTo((CheckCommand.USAGE + System.lineSeparator()).repeat(2));
    }

    @Test
    void unknownPropertiesAndMistypedYamlKeysFailTheCheck(@TempDir Path dir) throws Exception {
        Path properties = Files.writeString(dir.resolve("app.properties"), """
                llm.ratelimit.modles.gpt-4o.tpm=1000
                llm.ratelimit.reservaton.prod=0.9
                """);
        Path yaml = Files.writeString(dir.resolve("config.yaml"), """
                model_list:
                  - model_name: gpt-4o
                    litellm_params:
                      rpm: 10
                litellm_settings:
                  priority_reservations:
                    prod: 0.9
                """);

        assertThat(check("check", properties.toString(), yaml.toString())).isEqualTo(1);

        assertThat(err.toString(StandardCharsets.UTF_8)).isEqualTo("""
                Unknown key litellm_settings.priority_reservations is not read: did you mean litellm_settings.priority_reservation?
                Unknown property llm.ratelimit.modles.gpt-4o.tpm: did you mean llm.ratelimit.models.gpt-4o.tpm?
                Unknown property llm.ratelimit.reservaton.prod: did you mean llm.ratelimit.reservation.prod?
                """);
        assertThat(out.toString(StandardCharsets.UTF_8)).isEmpty();
    }
}
