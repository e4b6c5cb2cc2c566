package dev.llmratelimit.servers;

import dev.llmratelimit.sample.ChatCompletionServlet;
import org.jboss.shrinkwrap.api.ShrinkWrap;
import org.jboss.shrinkwrap.api.asset.StringAsset;
import org.jboss.shrinkwrap.api.exporter.ZipExporter;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.jboss.shrinkwrap.resolver.api.maven.Maven;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * Builds a server's sample application from {@code WEB-INF-samples}: the sample's web.xml and
 * configuration, the chat servlet, and in WEB-INF/lib the library jar this build packaged plus its
 * runtime dependencies. The WAR is also written to {@code target/samples/}, to deploy by hand.
 */
public final class SampleApplication {

    private static final Path SAMPLES = Path.of("WEB-INF-samples");

    private SampleApplication() {
    }

    /** The sample of {@code server} (wildfly, payara, tomcat), as {@code <server>-sample.war}. */
    public static WebArchive of(String server) {
        return of(server, server + "-sample.war");
    }

    /** The sample of {@code server} under another name, with the extra configuration lines given. */
    public static WebArchive of(String server, String archiveName, String... extraConfiguration) {
        return ShrinkWrap.create(WebArchive.class, archiveName)
                .setWebXML(SAMPLES.resolve(server).resolve("web.xml").toFile())
                .addClass(ChatCompletionServlet.class)
                .addAsResource(new StringAsset(configuration(extraConfiguration)), "META-INF/microprofile-config.properties")
                .addAsLibrary(new File(System.getProperty("library.jar")), "llm-ratelimit-filter.jar")
                .addAsLibraries(dependencies("com.fasterxml.jackson.core:jackson-core", "com.knuddels:jtokkit"));
    }

    /** Redisson and everything it needs, for {@code store=redis}. */
    public static File[] redisson() {
        return Maven.resolver().loadPomFromFile("pom.xml").resolve("org.redisson:redisson")
                .withTransitivity().asFile();
    }

    /**
     * SmallRye Config without its CDI integration: MicroProfile Config for a server that has none.
     * Jakarta APIs are left out, the server has them.
     */
    public static File[] smallRyeConfig() {
        return Arrays.stream(Maven.resolver().loadPomFromFile("pom.xml")
                        .resolve("io.smallrye.config:smallrye-config-core:3.17.2").withTransitivity().asFile())
                .filter(jar -> !jar.getName().startsWith("jakarta."))
                .toArray(File[]::new);
    }

    /** The given artifacts alone, at the versions this build's pom uses. */
    public static File[] dependencies(String... coordinates) {
        return Maven.resolver().loadPomFromFile("pom.xml").resolve(coordinates).withoutTransitivity().asFile();
    }

    /** Writes the archive to {@code target/samples/} and returns it, for {@code @Deployment} methods. */
    public static WebArchive exported(WebArchive war) {
        Path directory = Path.of("target", "samples");
        try {
            Files.createDirectories(directory);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        war.as(ZipExporter.class).exportTo(directory.resolve(war.getName()).toFile(), true);
        return war;
    }

    private static String configuration(String... extraConfiguration) {
        try {
            String base = Files.readString(SAMPLES.resolve("common").resolve("microprofile-config.properties"));
            return extraConfiguration.length == 0 ? base : base + String.join("\n", extraConfiguration) + "\n";
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
