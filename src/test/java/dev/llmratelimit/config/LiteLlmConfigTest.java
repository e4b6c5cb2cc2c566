package dev.llmratelimit.config;

import dev.llmratelimit.policy.ModelPolicy;
import dev.llmratelimit.policy.PolicyException;
import dev.llmratelimit.policy.PolicyParser;
import dev.llmratelimit.policy.RateLimitPolicy;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

/** A LiteLLM config.yaml mapped to our properties (docs/litellm-config.md, the mapping table). */
class LiteLlmConfigTest {

    private static final Map<String, String> ENVIRONMENT = Map.of("GPT4O_TPM", "5000", "PROD_SHARE", "0.7");

    private static ConfigFile parse(String... lines) {
        return LiteLlmConfig.parse(String.join("\n", lines) + "\n", "config.yaml", ENVIRONMENT::get);
    }

    @Test
    void deploymentsOfOneModelNameAddUpAsLiteLlmsRouterSumsThem() {
        ConfigFile file = parse(
                "model_list:",
                "  - model_name: gpt-4o",
                "    litellm_params: {model: azure/gpt-4o-eu, rpm: 100, tpm: 10000}",
                "  - model_name: gpt-4o",
                "    litellm_params: {model: azure/gpt-4o-us, rpm: 50, tpm: os.environ/GPT4O_TPM}",
                "  - model_name: gpt-4o",
                "    litellm_params: {model: openai/gpt-4o}",
                "  - model_name: gpt-4.1",
                "    litellm_params: {model: openai/gpt-4.1, tpm: 2000}",
                "  - model_name: embeddings",
                "    litellm_params: {model: openai/text-embedding-3-small}");

        assertThat(file.properties()).containsOnly(
                Map.entry("llm.ratelimit.models.gpt-4o.rpm", "150"),
                Map.entry("llm.ratelimit.models.gpt-4o.tpm", "15000"),
                Map.entry("llm.ratelimit.models.\"gpt-4.1\".tpm", "2000"));
        RateLimitPolicy policy = PolicyParser.parse(file.properties());
        assertThat(policy.model("gpt-4.1").tpm()).isEqualTo(2000);
        assertThat(policy.model("embeddings")).isNull();
        assertThat(file.notes()).containsExactly("Ignored (no rate-limit meaning here): model_list[].litellm_params.model");
    }

    @Test
    void reservationsAndTheirSettingsMapToOurProperties() {
        ConfigFile file = parse(
                "model_list:",
                "  - model_name: m",
                "    litellm_params: {model: openai/m, rpm: 10, tpm: 1000}",
                "litellm_settings:",
                "  callbacks: [\"dynamic_rate_limiter_v3\"]",
                "  drop_params: true",
                "  priority_reservation:",
                "    prod: os.environ/PROD_SHARE",
                "    dev: {type: rpm, value: 1}",
                "    batch: {value: 100, type: tpm}",
                "    team.a: 0.05",
                "  priority_reservation_settings:",
                "    default_priority: 0.1",
                "    saturation_threshold: 0.6",
                "    saturation_check_cache_ttl: 60",
                "    tracking_multiplier: 10",
                "general_settings: {master_key: os.environ/LITELLM_MASTER_KEY}",
                "router_settings: {routing_strategy: simple-shuffle}");

        assertThat(file.properties()).containsOnly(
                Map.entry("llm.ratelimit.models.m.rpm", "10"),
                Map.entry("llm.ratelimit.models.m.tpm", "1000"),
                Map.entry("llm.ratelimit.reservation.prod", "0.7"),
                Map.entry("llm.ratelimit.reservation.dev", "rpm:1"),
                Map.entry("llm.ratelimit.reservation.batch", "tpm:100"),
                Map.entry("llm.ratelimit.reservation.\"team.a\"", "0.05"),
                Map.entry("llm.ratelimit.default-priority", "0.1"),
                Map.entry("llm.ratelimit.saturation-threshold", "0.6"));
        ModelPolicy model = PolicyParser.parse(file.properties()).model("m");
        assertThat(model.shareOf("prod")).isEqualTo(0.7);
        assertThat(model.shareOf("dev")).isCloseTo(0.1, within(1e-12));
        assertThat(model.shareOf("batch")).isCloseTo(0.1, within(1e-12));
        assertThat(model.shareOf("team.a")).isEqualTo(0.05);
        assertThat(model.shareOf("anyone-else")).isEqualTo(0.1);
        assertThat(model.saturationThreshold()).isEqualTo(0.6);
        assertThat(file.notes()).containsExactly(
                "litellm_settings.priority_reservation_settings.saturation_check_cache_ttl is ignored: saturation is"
                        + " read in the same atomic step as every decision, never from a cache",
                "Ignored (no rate-limit meaning here): general_settings, litellm_settings.callbacks,"
                        + " litellm_settings.drop_params, litellm_settings.priority_reservation_settings.tracking_multiplier,"
                        + " model_list[].litellm_params.model, router_settings");
    }

    @Test
    void anEmptyFileConfiguresNothing() {
        assertThat(parse("").properties()).isEmpty();
        assertThat(parse("# only a comment").notes()).isEmpty();
    }

    @Test
    void invalidValuesAreRefusedNamingTheYamlKeyAndTheTypeFoundNeverTheValue() {
        assertRefused("Invalid configuration model_list[1].litellm_params.tpm: expected a whole number of at least 1,"
                        + " found a string",
                "model_list:", "  - model_name: m", "    litellm_params: {tpm: 60}",
                "  - model_name: m", "    litellm_params: {tpm: sixty}");
        assertRefused("Invalid configuration model_list[0].litellm_params.rpm: must be at least 1 (leave it out for no limit)",
                "model_list:", "  - model_name: m", "    litellm_params: {rpm: 0}");
        assertRefused("Invalid configuration model_list[0].litellm_params.rpm: expected a whole number of at least 1,"
                        + " found a decimal number",
                "model_list:", "  - model_name: m", "    litellm_params: {rpm: 1.5}");
        assertRefused("Invalid configuration model_list[0].model_name: every deployment needs a model_name",
                "model_list:", "  - litellm_params: {rpm: 5}");
        assertRefused("Invalid configuration model_list[0].litellm_params.tpm: environment variable MISSING_TPM is not set",
                "model_list:", "  - model_name: m", "    litellm_params: {tpm: os.environ/MISSING_TPM}");
        assertRefused("Invalid configuration litellm_settings.priority_reservation.dev: not a reservation: expected a"
                        + " fraction from 0 to 1, \"rpm:N\", \"tpm:N\" or {type: percent|rpm|tpm, value: N}",
                "litellm_settings:", "  priority_reservation:", "    dev: {type: gold, value: 1}");
        assertRefused("Invalid configuration litellm_settings.priority_reservation.prod: not a reservation: expected a"
                        + " fraction from 0 to 1, \"rpm:N\", \"tpm:N\" or {type: percent|rpm|tpm, value: N}",
                "litellm_settings:", "  priority_reservation: {prod: 1.5}");
        assertRefused("Invalid configuration model_list: expected a list of deployments, found a mapping",
                "model_list: {model_name: m}");
    }

    /** Each shape a hand-written file gets wrong around a deployment's key: the message names the key path and the type. */
    @Test
    void noMessageQuotesAKeyOrAnEnvironmentValue() {
        String key = "sk-live-0123456789abcdef";
        Map<String, String> environment = Map.of("OPENAI_KEY", key, "TPM", key);
        Map<String, String> files = Map.of(
                "model_list: {model_name: m, litellm_params: {api_key: " + key + "}}",
                "Invalid configuration model_list: expected a list of deployments, found a mapping",
                "model_list:\n  - [m, {api_key: " + key + "}]",
                "Invalid configuration model_list[0]: expected a mapping, found a list",
                "model_list:\n  - model_name: m\n    litellm_params: \"api_key=" + key + "\"",
                "Invalid configuration model_list[0].litellm_params: expected a mapping, found a string",
                "model_list:\n  - model_name: m\n    litellm_params: {api_key: " + key + ", rpm: [" + key + "]}",
                "Invalid configuration model_list[0].litellm_params.rpm: expected a number or a string, found a list",
                "model_list:\n  - model_name: m\n    litellm_params: {tpm: os.environ/TPM}",
                "Invalid configuration model_list[0].litellm_params.tpm: expected a whole number of at least 1,"
                        + " found an environment variable's value",
                "model_list:\n  - model_name: m\n    litellm_params: {api_key: " + key + ", rpm: 5\n",
                "Invalid configuration llm.ratelimit.config-file=config.yaml: not valid YAML (line 3, column 63)");
        files.forEach((yaml, message) -> assertThatThrownBy(() -> LiteLlmConfig.parse(yaml, "config.yaml", environment::get))
                .isInstanceOf(PolicyException.class).hasMessage(message));
    }

    @Test
    void aKeyWrittenTwiceOrBrokenYamlIsRefusedWithItsLine() {
        assertThatThrownBy(() -> parse("litellm_settings:", "  priority_reservation: {prod: 0.9}",
                "  priority_reservation: {prod: 0.1}"))
                .isInstanceOf(PolicyException.class)
                .hasMessage("Invalid configuration llm.ratelimit.config-file=config.yaml: not valid YAML: a key is written"
                        + " twice (line 3, column 23)");
        assertThatThrownBy(() -> parse("model_list: [", "  - model_name: m"))
                .hasMessageStartingWith("Invalid configuration llm.ratelimit.config-file=config.yaml: not valid YAML (line");
        assertThatThrownBy(() -> parse("- just", "- a list"))
                .hasMessage("Invalid configuration llm.ratelimit.config-file=config.yaml:"
                        + " expected a LiteLLM config.yaml: a mapping with model_list and litellm_settings");
    }

    /** "Billion laughs": aliases of aliases would expand to 10^10 nodes; Jackson's YAML parser never expands them. */
    @Test
    void anAliasBombCostsNothing() {
        StringBuilder yaml = new StringBuilder("a: &a [x, x, x, x, x, x, x, x, x, x]\n");
        for (char level = 'b'; level <= 'j'; level++) {
            yaml.append(level).append(": &").append(level).append(" [");
            for (int i = 0; i < 10; i++) {
                yaml.append(i == 0 ? "" : ", ").append('*').append((char) (level - 1));
            }
            yaml.append("]\n");
        }
        ConfigFile file = LiteLlmConfig.parse(yaml.toString(), "config.yaml", ENVIRONMENT::get);

        assertThat(file.properties()).isEmpty();
        assertThat(file.notes()).containsExactly("Ignored (no rate-limit meaning here): a, b, c, d, e, f, g, h, i, j");
    }

    @Test
    void theFileReaderTellsYamlFromProperties(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
        Path yaml = Files.writeString(dir.resolve("config.yml"), "model_list:\n  - model_name: m\n    litellm_params: {rpm: 3}\n");
        Path properties = Files.writeString(dir.resolve("limits.properties"), "llm.ratelimit.models.m.rpm=4\n");

        assertThat(ConfigFiles.read(yaml).properties()).containsOnly(Map.entry("llm.ratelimit.models.m.rpm", "3"));
        assertThat(ConfigFiles.read(properties).properties()).containsOnly(Map.entry("llm.ratelimit.models.m.rpm", "4"));
        Path missing = dir.resolve("missing.yaml");
        assertThatThrownBy(() -> ConfigFiles.read(missing))
                .hasMessageStartingWith("Invalid configuration llm.ratelimit.config-file=" + missing + ": cannot be read");
    }

    private static void assertRefused(String message, String... lines) {
        assertThatThrownBy(() -> parse(lines)).isInstanceOf(PolicyException.class).hasMessage(message);
    }
}
