package dev.llmratelimit.spring;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.util.DefaultIndenter;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.llmratelimit.config.KnownProperties;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Spring Boot configuration metadata the jar ships (IDE completion and help for
 * {@code llm.ratelimit.*} in {@code application.properties} and {@code application.yml}): every name
 * without a part the operator chooses, with the default and the description its row in docs/ gives.
 * The file is generated from the docs: {@code mvn test -Dtest=SpringConfigurationMetadataTest
 * -Dmetadata.write=true} writes it again after a docs change.
 */
class SpringConfigurationMetadataTest {

    static final Path SHIPPED = Path.of("src/main/resources/META-INF/spring-configuration-metadata.json");
    /** A docs table row that names properties: the names, the default, the description. */
    private static final Pattern ROW = Pattern.compile("^\\| (`llm\\.ratelimit\\..*?) \\| (.*?) \\|(.*)\\|$");
    private static final Pattern CODE = Pattern.compile("`([^`]+)`");
    private static final Pattern CHOICE = Pattern.compile("<([a-z-]+(?:\\|[a-z-]+)+)>");
    private static final Pattern LINK = Pattern.compile("\\[([^]]+)]\\([^)]*\\)");

    /** A property's default and description as its docs row gives them. */
    private record Documented(String defaultValue, String description) {
    }

    @Test
    void theShippedMetadataIsTheOneTheDocsGive() throws IOException {
        String expected = metadata(documented());
        if (Boolean.getBoolean("metadata.write")) {
            Files.writeString(SHIPPED, expected, StandardCharsets.UTF_8);
        }
        assertThat(Files.readString(SHIPPED, StandardCharsets.UTF_8))
                .as("regenerate with -Dmetadata.write=true").isEqualTo(expected);
    }

    @Test
    void everyFixedPropertyIsListedAndNothingElse() throws IOException {
        JsonNode properties = new ObjectMapper().readTree(SHIPPED.toFile()).get("properties");
        List<String> names = new ArrayList<>();
        properties.forEach(property -> names.add(property.get("name").asText()));
        assertThat(names).containsExactlyInAnyOrderElementsOf(KnownProperties.fixedNames());
        assertThat(properties).filteredOn(property -> property.has("description")).hasSizeGreaterThan(names.size() * 3 / 4);
        JsonNode store = find(properties, "llm.ratelimit.on-internal-error");
        assertThat(store.get("defaultValue").asText()).isEqualTo("fail-closed");
        assertThat(find(properties, "llm.ratelimit.enabled").get("type").asText()).isEqualTo("java.lang.Boolean");
        assertThat(find(properties, "llm.ratelimit.redis.password").get("description").asText()).isEqualTo("ACL user / password");
    }

    private static JsonNode find(JsonNode properties, String name) {
        for (JsonNode property : properties) {
            if (property.get("name").asText().equals(name)) {
                return property;
            }
        }
        throw new AssertionError("not listed: " + name);
    }

    /** Every fixed name a docs row documents, with that row's default and description (the first row wins). */
    private static Map<String, Documented> documented() throws IOException {
        Map<String, Documented> documented = new LinkedHashMap<>();
        try (Stream<Path> files = Files.list(Path.of("docs"))) {
            for (Path file : files.filter(path -> path.toString().endsWith(".md")).sorted().toList()) {
                for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                    Matcher row = ROW.matcher(line);
                    if (row.matches()) {
                        Documented entry = new Documented(defaultOf(row.group(2)), text(row.group(3)));
                        for (String name : names(row.group(1))) {
                            documented.putIfAbsent(name, entry);
                        }
                    }
                }
            }
        }
        return documented;
    }

    /**
     * The names a row's first cell gives: its first name, then each {@code / `x`} replacing the
     * first name's last part with {@code x}; a choice {@code <key|user|team>} gives one name each.
     */
    private static List<String> names(String cell) {
        List<String> written = new ArrayList<>();
        Matcher code = CODE.matcher(cell.replace("\\|", "|"));
        while (code.find()) {
            written.add(code.group(1));
        }
        List<String> names = new ArrayList<>();
        String first = written.get(0);
        String stem = first.substring(0, first.lastIndexOf('.') + 1);
        for (int i = 0; i < written.size(); i++) {
            String name = i == 0 ? first : stem + (written.get(i).startsWith(".") ? written.get(i).substring(1) : written.get(i));
            names.addAll(choices(name));
        }
        return names;
    }

    private static List<String> choices(String name) {
        Matcher choice = CHOICE.matcher(name);
        if (!choice.find()) {
            return List.of(name);
        }
        List<String> names = new ArrayList<>();
        for (String option : choice.group(1).split("\\|")) {
            names.addAll(choices(name.substring(0, choice.start()) + option + name.substring(choice.end())));
        }
        return names;
    }

    /** A default cell as a value: a literal in code quotes, else none. */
    private static String defaultOf(String cell) {
        Matcher code = CODE.matcher(cell.trim());
        return code.matches() ? code.group(1) : null;
    }

    /** A cell as plain text: links by their text, no code quotes. */
    private static String text(String cell) {
        String text = LINK.matcher(cell.replace("\\|", "|")).replaceAll("$1").replace("`", "");
        return text.replaceAll("\\s+", " ").trim();
    }

    private static String metadata(Map<String, Documented> documented) throws IOException {
        StringWriter out = new StringWriter();
        DefaultPrettyPrinter pretty = new DefaultPrettyPrinter().withArrayIndenter(DefaultIndenter.SYSTEM_LINEFEED_INSTANCE);
        try (JsonGenerator json = new JsonFactory().createGenerator(out).setPrettyPrinter(pretty)) {
            json.writeStartObject();
            json.writeArrayFieldStart("groups");
            json.writeStartObject();
            json.writeStringField("name", "llm.ratelimit");
            json.writeStringField("description", "llm-ratelimit-filter: rate limits, budgets and fairness for "
                    + "OpenAI-compatible endpoints. Names with a part you choose (models.<model>.rpm, principals.<name>.*) "
                    + "are listed in docs/configuration.md.");
            json.writeEndObject();
            json.writeEndArray();
            json.writeArrayFieldStart("properties");
            for (String name : KnownProperties.fixedNames()) {
                Documented entry = documented.get(name);
                String defaultValue = entry == null ? null : entry.defaultValue();
                boolean flag = "true".equals(defaultValue) || "false".equals(defaultValue);
                json.writeStartObject();
                json.writeStringField("name", name);
                json.writeStringField("type", flag ? "java.lang.Boolean" : "java.lang.String");
                if (entry != null && !entry.description().isEmpty()) {
                    json.writeStringField("description", entry.description());
                }
                if (flag) {
                    json.writeBooleanField("defaultValue", Boolean.parseBoolean(defaultValue));
                } else if (defaultValue != null) {
                    json.writeStringField("defaultValue", defaultValue);
                }
                json.writeEndObject();
            }
            json.writeEndArray();
            json.writeEndObject();
        }
        return out + "\n";
    }
}
