package dev.llmratelimit.demo;

import dev.llmratelimit.testsupport.Http;
import org.junit.jupiter.api.Test;

import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.jar.JarFile;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The built {@code target/llm-ratelimit-demo.jar} (run by failsafe after {@code package}): it holds
 * the demo's classes and no test class, and {@code java -jar} with LiteLLM's quick start as its
 * {@code --config} serves two calls and refuses the third model-wide.
 */
class DemoJarIT {

    private static final Path JAR = Path.of(System.getProperty("demo.jar", "target/llm-ratelimit-demo.jar"));
    private static final Path DEMO_CLASSES = Path.of(System.getProperty("demo.classes", "target/demo-classes"));
    private static final String CHAT = "{\"model\":\"gpt-4o-mini\",\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]}";

    private static Set<String> jarEntries() throws Exception {
        try (JarFile jar = new JarFile(JAR.toFile())) {
            return jar.stream().map(ZipEntry::getName).collect(Collectors.toSet());
        }
    }

    /** Class files under {@code root}, as jar entry names. */
    private static Set<String> classFiles(Path root) throws Exception {
        try (Stream<Path> files = Files.walk(root)) {
            return files.filter(file -> file.toString().endsWith(".class"))
                    .map(file -> root.relativize(file).toString().replace('\\', '/'))
                    .collect(Collectors.toSet());
        }
    }

    @Test
    void theJarHoldsTheDemoAndNoTestClass() throws Exception {
        Set<String> entries = jarEntries();
        Set<String> demo = classFiles(DEMO_CLASSES);
        Set<String> testOnly = classFiles(Path.of(DemoJarIT.class.getProtectionDomain().getCodeSource().getLocation().toURI()));
        testOnly.removeAll(demo);

        assertThat(demo).contains("dev/llmratelimit/demo/DemoServer.class", "dev/llmratelimit/demo/MockChatServlet.class");
        assertThat(entries).containsAll(demo).contains("demo.properties", "dev/llmratelimit/servlet/RateLimitFilter.class");
        assertThat(entries.stream().filter(name -> name.startsWith("dev/llmratelimit/demo/") && name.endsWith(".class")))
                .containsExactlyInAnyOrderElementsOf(demo);
        assertThat(testOnly).contains("dev/llmratelimit/demo/QuickStartTest.class", "dev/llmratelimit/demo/DemoJarIT.class",
                "dev/llmratelimit/testsupport/Http.class");
        assertThat(entries).doesNotContainAnyElementsOf(testOnly);
        assertThat(entries).noneMatch(name -> name.startsWith("org/junit/") || name.startsWith("com/openai/")
                || name.startsWith("org/assertj/"));
    }

    @Test
    void javaDashJarRunsLiteLlmsQuickStartAsItsConfig() throws Exception {
        Path config = Files.createTempFile("litellm-quick-start", ".properties");
        Files.writeString(config, "llm.ratelimit.models.gpt-4o-mini.tpm=60\n");
        try (DemoProcess demo = DemoProcess.start(config, "-jar", JAR.toString())) {
            Http http = new Http(demo.port());
            HttpResponse<String> first = http.chat("sk-anything", CHAT);
            HttpResponse<String> second = http.chat("sk-anything", CHAT);
            HttpResponse<String> third = http.chat("sk-anything", CHAT);

            assertThat(first.statusCode()).isEqualTo(200);
            assertThat(second.statusCode()).isEqualTo(200);
            assertThat(Http.header(second, "x-ratelimit-remaining-tokens")).isEqualTo("30");
            assertThat(third.statusCode()).isEqualTo(429);
            assertThat(third.body()).isEqualTo("{\"error\":{\"message\":\"Model capacity reached for gpt-4o-mini. "
                    + "Priority: default, Rate limit type: tokens, Model TPM: 60, Model RPM: not configured, Remaining: 0\","
                    + "\"type\":\"throttling_error\",\"param\":null,\"code\":\"429\"}}");
        }
    }
}
