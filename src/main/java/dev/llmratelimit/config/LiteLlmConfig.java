package dev.llmratelimit.config;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.llmratelimit.policy.PolicyException;
import dev.llmratelimit.policy.PolicyParser;
import dev.llmratelimit.policy.PropertyNames;
import dev.llmratelimit.policy.Reservation;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * Maps a LiteLLM {@code config.yaml} to {@code llm.ratelimit.*} properties: capacities from
 * {@code model_list[].litellm_params.rpm/tpm/itpm/otpm} (summed per {@code model_name}, as LiteLLM's router
 * sums its deployments), {@code litellm_settings.priority_reservation} and
 * {@code litellm_settings.priority_reservation_settings}. Everything else is reported, not used.
 * The only class that touches the YAML parser (an optional dependency).
 */
final class LiteLlmConfig {

    private static final String ENV_PREFIX = "os.environ/";
    /** The capacities a deployment's {@code litellm_params} set, summed per model: the model setting of the same name. */
    private static final List<String> CAPACITIES = List.of("rpm", "tpm", "itpm", "otpm");
    /** A key written twice is a typo to report, not a value to drop silently. */
    private static final YAMLMapper YAML = YAMLMapper.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build();

    private final Function<String, String> environment;
    private final Map<String, String> properties = new HashMap<>();
    private final Set<String> ignored = new TreeSet<>();
    private final List<String> notes = new ArrayList<>();

    private LiteLlmConfig(Function<String, String> environment) {
        this.environment = environment;
    }

    /**
     * @param source      the file, as the error messages name it
     * @param environment resolves {@code os.environ/NAME} values ({@code System::getenv} outside tests)
     * @throws PolicyException naming the YAML key ({@code model_list[2].litellm_params.tpm}) and what was wrong
     *                         with its type, never a value from the file or the environment
     */
    static ConfigFile parse(String yaml, String source, Function<String, String> environment) {
        JsonNode root;
        try {
            root = YAML.readTree(yaml);
        } catch (JsonProcessingException e) {
            // The parser's own message quotes the offending line, which may hold a key.
            String problem = e.getOriginalMessage().startsWith("Duplicate field") ? "not valid YAML: a key is written twice"
                    : "not valid YAML";
            throw new PolicyException(ConfigFiles.PROPERTY, source, problem + (e.getLocation() == null ? ""
                    : " (line " + e.getLocation().getLineNr() + ", column " + e.getLocation().getColumnNr() + ")"));
        }
        LiteLlmConfig config = new LiteLlmConfig(environment);
        if (root != null && !root.isMissingNode() && !root.isNull()) {
            if (!root.isObject()) {
                throw new PolicyException(ConfigFiles.PROPERTY, source,
                        "expected a LiteLLM config.yaml: a mapping with model_list and litellm_settings");
            }
            config.read(root);
        }
        return config.result();
    }

    private void read(JsonNode root) {
        for (Map.Entry<String, JsonNode> entry : fields(root)) {
            switch (entry.getKey()) {
                case "model_list" -> models(entry.getValue());
                case "litellm_settings" -> settings(entry.getValue());
                default -> ignored.add(entry.getKey());
            }
        }
    }

    private void models(JsonNode list) {
        if (!list.isArray()) {
            throw invalid("model_list", list, "expected a list of deployments");
        }
        Map<String, long[]> capacities = new TreeMap<>();
        for (int i = 0; i < list.size(); i++) {
            String path = "model_list[" + i + "]";
            JsonNode deployment = object(path, list.get(i));
            String name = modelName(path + ".model_name", deployment.get("model_name"));
            long[] capacity = capacities.computeIfAbsent(name, n -> new long[CAPACITIES.size()]);
            for (Map.Entry<String, JsonNode> entry : fields(deployment)) {
                switch (entry.getKey()) {
                    case "model_name" -> { }
                    case "litellm_params" -> deploymentLimits(path + ".litellm_params", entry.getValue(), capacity);
                    default -> ignored.add("model_list[]." + entry.getKey());
                }
            }
        }
        capacities.forEach((name, capacity) -> {
            String prefix = PolicyParser.PREFIX + "models." + PropertyNames.quote(name) + ".";
            for (int i = 0; i < capacity.length; i++) {
                if (capacity[i] > 0) {
                    properties.put(prefix + CAPACITIES.get(i), Long.toString(capacity[i]));
                }
            }
        });
    }

    private void deploymentLimits(String path, JsonNode params, long[] capacity) {
        for (Map.Entry<String, JsonNode> entry : fields(object(path, params))) {
            int i = CAPACITIES.indexOf(entry.getKey());
            if (i >= 0) {
                capacity[i] = saturatedSum(capacity[i], limit(path + "." + entry.getKey(), entry.getValue()));
            } else {
                ignored.add("model_list[].litellm_params." + entry.getKey());
            }
        }
    }

    private void settings(JsonNode settings) {
        for (Map.Entry<String, JsonNode> entry : fields(object("litellm_settings", settings))) {
            switch (entry.getKey()) {
                case "priority_reservation" -> reservations(entry.getValue());
                case "priority_reservation_settings" -> reservationSettings(entry.getValue());
                default -> ignored.add("litellm_settings." + entry.getKey());
            }
        }
    }

    private void reservations(JsonNode reservations) {
        String path = "litellm_settings.priority_reservation";
        for (Map.Entry<String, JsonNode> entry : fields(object(path, reservations))) {
            String priority = entry.getKey();
            String key = path + "." + priority;
            if (priority.indexOf('"') >= 0) {
                throw new PolicyException(key, "a priority name may not contain '\"'");
            }
            String text = reservation(key, entry.getValue());
            try {
                Reservation.parse(key, text);
            } catch (PolicyException e) {
                throw new PolicyException(key, "not a reservation: expected a fraction from 0 to 1, \"rpm:N\", \"tpm:N\""
                        + " or {type: percent|rpm|tpm, value: N}");
            }
            properties.put(PolicyParser.PREFIX + "reservation." + PropertyNames.quote(priority), text);
        }
    }

    /** {@code 0.9}, {@code "rpm:9"} or {@code {type: rpm, value: 9}} as the text {@link Reservation} reads. */
    private String reservation(String key, JsonNode value) {
        if (!value.isObject()) {
            return scalar(key, value);
        }
        String type = null;
        String number = null;
        for (Map.Entry<String, JsonNode> entry : fields(value)) {
            switch (entry.getKey()) {
                case "type" -> type = scalar(key + ".type", entry.getValue());
                case "value" -> number = scalar(key + ".value", entry.getValue());
                default -> throw new PolicyException(key + "." + entry.getKey(),
                        "a reservation has only type (percent, rpm or tpm) and value");
            }
        }
        if (type == null || number == null) {
            throw new PolicyException(key, "expected {type: percent|rpm|tpm, value: N}");
        }
        return type + ":" + number;
    }

    private void reservationSettings(JsonNode settings) {
        String path = "litellm_settings.priority_reservation_settings";
        for (Map.Entry<String, JsonNode> entry : fields(object(path, settings))) {
            String key = path + "." + entry.getKey();
            switch (entry.getKey()) {
                case "default_priority" -> properties.put(PolicyParser.PREFIX + "default-priority", scalar(key, entry.getValue()));
                case "saturation_threshold" -> properties.put(PolicyParser.PREFIX + "saturation-threshold", scalar(key, entry.getValue()));
                case "saturation_check_cache_ttl" -> notes.add(key + " is ignored: saturation is read in the same"
                        + " atomic step as every decision, never from a cache");
                default -> ignored.add(key);
            }
        }
    }

    private ConfigFile result() {
        List<String> warnings = new ArrayList<>();
        Set<String> unused = new TreeSet<>();
        for (String key : ignored) {
            LiteLlmKeys.near(key).ifPresentOrElse(
                    known -> warnings.add("Unknown key " + key + " is not read: did you mean " + known + "?"),
                    () -> unused.add(key));
        }
        if (!unused.isEmpty()) {
            notes.add("Ignored (no rate-limit meaning here): " + String.join(", ", unused));
        }
        return new ConfigFile(properties, notes, warnings);
    }

    private static String modelName(String path, JsonNode node) {
        if (node == null || !node.isTextual() || node.asText().isBlank()) {
            throw node == null ? new PolicyException(path, "every deployment needs a model_name")
                    : invalid(path, node, "every deployment needs a model_name (a string)");
        }
        String name = node.asText().trim();
        if (name.indexOf('"') >= 0) {
            throw new PolicyException(path, "a model name may not contain '\"'");
        }
        return name;
    }

    private long limit(String path, JsonNode node) {
        String text = scalar(path, node);
        long value;
        try {
            value = Long.parseLong(text.trim());
        } catch (NumberFormatException e) {
            throw invalid(path, node, "expected a whole number of at least 1");
        }
        if (value < 1) {
            throw new PolicyException(path, "must be at least 1 (leave it out for no limit)");
        }
        return value;
    }

    /** A number or a string; {@code os.environ/NAME} is replaced by that environment variable. */
    private String scalar(String path, JsonNode node) {
        if (node.isNumber()) {
            return node.asText();
        }
        if (!node.isTextual()) {
            throw invalid(path, node, "expected a number or a string");
        }
        String text = node.asText();
        if (!text.startsWith(ENV_PREFIX)) {
            return text;
        }
        String variable = text.substring(ENV_PREFIX.length());
        String value = environment.apply(variable);
        if (value == null) {
            throw new PolicyException(path, "environment variable " + variable + " is not set");
        }
        return value;
    }

    private static JsonNode object(String path, JsonNode node) {
        if (!node.isObject()) {
            throw invalid(path, node, "expected a mapping");
        }
        return node;
    }

    /**
     * Names what was found by its type, never its value: a file that puts a deployment's
     * {@code litellm_params} in the wrong shape would otherwise quote its {@code api_key}.
     */
    private static PolicyException invalid(String path, JsonNode found, String problem) {
        return new PolicyException(path, problem + ", found " + kind(found));
    }

    private static String kind(JsonNode node) {
        if (node.isObject()) {
            return "a mapping";
        }
        if (node.isArray()) {
            return "a list";
        }
        if (node.isTextual()) {
            return node.asText().startsWith(ENV_PREFIX) ? "an environment variable's value" : "a string";
        }
        if (node.isNumber()) {
            return node.isIntegralNumber() ? "a whole number" : "a decimal number";
        }
        return node.isBoolean() ? "true or false" : "nothing (null)";
    }

    private static Set<Map.Entry<String, JsonNode>> fields(JsonNode node) {
        return node.properties();
    }

    private static long saturatedSum(long a, long b) {
        long sum = a + b;
        return sum < 0 ? Long.MAX_VALUE : sum;
    }
}
