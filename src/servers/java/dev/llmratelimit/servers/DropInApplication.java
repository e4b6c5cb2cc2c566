package dev.llmratelimit.servers;

import dev.llmratelimit.servers.dropin.ChatAnswer;
import dev.llmratelimit.servers.dropin.ChatApplication;
import dev.llmratelimit.servers.dropin.ChatBody;
import dev.llmratelimit.servers.dropin.ChatMessage;
import dev.llmratelimit.servers.dropin.ChatResource;
import dev.llmratelimit.servers.dropin.EchoResource;
import dev.llmratelimit.servers.dropin.EjbChatResource;
import dev.llmratelimit.servers.dropin.OpenAiResource;
import dev.llmratelimit.servers.dropin.TokenUsage;
import dev.llmratelimit.servers.dropin.TransactionalChat;
import org.jboss.shrinkwrap.api.ShrinkWrap;
import org.jboss.shrinkwrap.api.asset.StringAsset;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.jboss.shrinkwrap.resolver.api.maven.Maven;

import java.io.File;
import java.util.Arrays;

/**
 * The drop-in sample, built like an application developer's WAR: a JAX-RS application
 * with JSON-B beans, an EJB and a {@code @Transactional} bean, and in WEB-INF/lib the library jar
 * with exactly the dependencies its pom gives an application (Redisson only where added).
 */
public final class DropInApplication {

    /** The configuration every drop-in WAR starts from; anonymous callers share the default pool. */
    public static final String[] CONFIGURATION = {
            "llm.ratelimit.window=1h",
            "llm.ratelimit.paths=/api/v1/chat/completions",
            "llm.ratelimit.models.pojo.rpm=100",
            "llm.ratelimit.models.cut.tpm=1000",
            "llm.ratelimit.models.ejb.rpm=1",
            "llm.ratelimit.models.transactional.rpm=1",
            "llm.ratelimit.models.switch.rpm=1",
            "llm.ratelimit.models.filtered.rpm=1",
    };

    public static final String ABSOLUTE_ORDERING = web("<absolute-ordering/>");
    public static final String JSON_B_OVER_JACKSON = web("<context-param><param-name>resteasy.preferJacksonOverJsonB"
            + "</param-name><param-value>false</param-value></context-param>");

    private DropInApplication() {
    }

    /** The host application alone, without the library: what its JSON looks like untouched. */
    public static WebArchive withoutLibrary(String name) {
        return ShrinkWrap.create(WebArchive.class, name + ".war")
                .addClasses(ChatApplication.class, EchoResource.class, ChatBody.class, ChatMessage.class,
                        ChatAnswer.class, TokenUsage.class);
    }

    /** The host application with the library dropped in, its configuration and extra lines. */
    public static WebArchive withLibrary(String name, String... extraConfiguration) {
        return withoutLibrary(name)
                .addClasses(ChatResource.class, TransactionalChat.class, EjbChatResource.class, OpenAiResource.class)
                .addAsResource(new StringAsset(String.join("\n", CONFIGURATION) + "\n"
                        + String.join("\n", extraConfiguration) + "\n"), "META-INF/microprofile-config.properties")
                .addAsLibrary(new File(System.getProperty("library.jar")), "llm-ratelimit-filter.jar")
                .addAsLibraries(libraryDependencies());
    }

    /** The library jar alone with the given configuration: nothing but the web-fragment runs. */
    public static WebArchive libraryOnly(String name, File[] extraLibraries, String... configuration) {
        return ShrinkWrap.create(WebArchive.class, name + ".war")
                .addAsResource(new StringAsset(String.join("\n", configuration) + "\n"),
                        "META-INF/microprofile-config.properties")
                .addAsLibrary(new File(System.getProperty("library.jar")), "llm-ratelimit-filter.jar")
                .addAsLibraries(libraryDependencies())
                .addAsLibraries(extraLibraries);
    }

    /**
     * The library's dependencies as its pom gives them to an application: its compile and runtime
     * dependencies that are not optional, with theirs. (Resolving the pom itself would also bring
     * the optional ones, which only the library's own build sees.)
     */
    public static File[] libraryDependencies() {
        String[] required = Arrays.stream(Maven.resolver().loadPomFromFile("pom.xml")
                        .importCompileAndRuntimeDependencies().resolve().withoutTransitivity().asResolvedArtifact())
                .filter(artifact -> !artifact.isOptional())
                .map(artifact -> artifact.getCoordinate().toCanonicalForm())
                .toArray(String[]::new);
        return Maven.resolver().loadPomFromFile("pom.xml").resolve(required).withTransitivity().asFile();
    }

    private static String web(String content) {
        return "<web-app xmlns=\"https://jakarta.ee/xml/ns/jakartaee\" version=\"6.0\">" + content + "</web-app>";
    }
}
