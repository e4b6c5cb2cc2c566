package dev.llmratelimit.servers.wildfly;

import dev.llmratelimit.servers.DropInApplication;
import dev.llmratelimit.servers.dropin.ChatResource;
import dev.llmratelimit.testsupport.RedisServer;
import dev.llmratelimit.usage.TokenCounter;
import org.jboss.arquillian.container.test.api.Deployer;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.as.controller.client.ModelControllerClient;
import org.jboss.as.controller.client.helpers.Operations;
import org.jboss.dmr.ModelNode;
import org.jboss.shrinkwrap.api.ArchivePath;
import org.jboss.shrinkwrap.api.asset.StringAsset;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The drop-in sample in a real WildFly, with an application written as a developer writes one (JAX-RS, JSON-B
 * beans, an EJB, a {@code @Transactional} bean, no security): the library dropped in changes none of
 * its JSON (memory and Redis store), invalid configuration fails the deployment (web-fragment and
 * interceptor-only), a refused EJB call is a clean 429 that logs nothing, a refused
 * {@code @Transactional} call starts no transaction, and the filter and the interceptor have their
 * own switches.
 */
@ExtendWith(ArquillianExtension.class)
class WildFlyDropInIT {

    private static final String ROOT = "http://127.0.0.1:8180/";   // port offset 100 (arquillian.xml)
    private static final Path SERVER_LOG = Path.of(System.getProperty("wildfly.home"), "standalone/log/server.log");
    private static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();
    private static final String POJO_REQUEST = "{\"model\":\"pojo\",\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}],"
            + "\"max_tokens\":50}";
    private static final String POJO_ANSWER = "{\"content\":\"Hello from pojo\",\"max_tokens\":50,\"model\":\"pojo\","
            + "\"usage\":{\"completion_tokens\":20,\"prompt_tokens\":12}}";
    private static final String INVALID = "llm.ratelimit.reservation.dev=-0.1";

    private static RedisServer redis;

    @ArquillianResource
    Deployer deployer;

    @Deployment(name = "plain", testable = false, order = 1)
    static WebArchive plain() {
        return DropInApplication.withoutLibrary("plain");
    }

    @Deployment(name = "dropin", testable = false, order = 2)
    static WebArchive dropIn() {
        return DropInApplication.withLibrary("dropin");
    }

    @Deployment(name = "dropin-redis", testable = false, order = 3)
    static WebArchive dropInRedis() {
        redis = RedisServer.startNew();
        return DropInApplication.withLibrary("dropin-redis", "llm.ratelimit.store=redis",
                        "llm.ratelimit.redis.address=" + redis.address())
                .addAsLibraries(dev.llmratelimit.servers.SampleApplication.redisson())
                .setWebXML(new StringAsset(DropInApplication.JSON_B_OVER_JACKSON));
    }

    @Deployment(name = "no-fragment", testable = false, order = 4)
    static WebArchive noFragment() {
        return DropInApplication.withLibrary("no-fragment").setWebXML(new StringAsset(DropInApplication.ABSOLUTE_ORDERING));
    }

    @Deployment(name = "filter-off", testable = false, order = 5)
    static WebArchive filterOff() {
        return DropInApplication.withLibrary("filter-off", "llm.ratelimit.filter.enabled=false");
    }

    @Deployment(name = "interceptor-off", testable = false, order = 6)
    static WebArchive interceptorOff() {
        return DropInApplication.withLibrary("interceptor-off", "llm.ratelimit.interceptor.enabled=false");
    }

    @Deployment(name = "invalid-fragment", testable = false, managed = false)
    static WebArchive invalidWithFragment() {
        return DropInApplication.libraryOnly("invalid-fragment", new File[0], INVALID);
    }

    @Deployment(name = "invalid-interceptor-only", testable = false, managed = false)
    static WebArchive invalidInterceptorOnly() {
        return DropInApplication.withLibrary("invalid-interceptor-only", INVALID)
                .setWebXML(new StringAsset(DropInApplication.ABSOLUTE_ORDERING));
    }

    @Deployment(name = "redis-without-redisson", testable = false, managed = false)
    static WebArchive redisWithoutRedisson() {
        return DropInApplication.libraryOnly("redis-without-redisson", new File[0], "llm.ratelimit.store=redis");
    }

    @AfterAll
    static void stopRedis() {
        redis.close();
    }

    @Test
    void theLibraryBringsOnlyJacksonCoreAndJtokkit() {
        List<String> libraries = DropInApplication.withLibrary("listing").getContent().keySet().stream()
                .map(ArchivePath::get).filter(path -> path.startsWith("/WEB-INF/lib/"))
                .map(path -> path.substring("/WEB-INF/lib/".length())).sorted().toList();

        assertThat(libraries).containsExactly("jackson-core-2.20.1.jar", "jtokkit-1.1.0.jar", "llm-ratelimit-filter.jar");
    }

    @Test
    void theApplicationsJsonStaysByteIdenticalWithTheLibraryInMemoryAndRedis() throws Exception {
        HttpResponse<String> untouched = post("plain/api/echo", POJO_REQUEST);

        assertThat(untouched.statusCode()).isEqualTo(200);
        assertThat(untouched.body()).isEqualTo(POJO_ANSWER);
        for (String application : List.of("dropin", "dropin-redis")) {
            HttpResponse<String> echo = post(application + "/api/echo", POJO_REQUEST);
            HttpResponse<String> limited = post(application + "/api/chat", POJO_REQUEST);
            assertThat(echo.statusCode()).as(application).isEqualTo(200);
            assertThat(echo.body()).as(application).isEqualTo(POJO_ANSWER);
            assertThat(limited.statusCode()).as(application).isEqualTo(200);
            assertThat(limited.body()).as(application).isEqualTo(POJO_ANSWER);
        }
        assertThat((Long) redis.call("DBSIZE")).isPositive();   // the Redis store counted the calls
    }

    @Test
    void invalidConfigurationFailsTheDeployment() {
        assertThatThrownBy(() -> deployer.deploy("invalid-fragment"))
                .hasStackTraceContaining("Invalid configuration " + INVALID + ": a reservation must be a finite number >= 0");
        assertThatThrownBy(() -> deployer.deploy("invalid-interceptor-only"))
                .hasStackTraceContaining("Invalid configuration " + INVALID);
        assertThatThrownBy(() -> deployer.deploy("redis-without-redisson"))
                .hasStackTraceContaining("Invalid configuration llm.ratelimit.store=redis: Redisson is not on the "
                        + "application's class path");
    }

    @Test
    void aRefusedEjbCallIsAClean429ThatLogsNothing() throws Exception {
        long logBefore = Files.size(SERVER_LOG);
        HttpResponse<String> admitted = post("dropin/api/ejb", "{\"model\":\"ejb\"}");
        HttpResponse<String> refused = post("dropin/api/ejb", "{\"model\":\"ejb\"}");
        String logged = logSince(logBefore);

        assertThat(admitted.statusCode()).isEqualTo(200);
        assertThat(admitted.body()).isEqualTo("{\"content\":\"Hello from ejb\",\"model\":\"ejb\","
                + "\"usage\":{\"completion_tokens\":20,\"prompt_tokens\":12}}");
        assertThat(refused.statusCode()).isEqualTo(429);
        assertThat(refused.headers().firstValue("content-type")).contains("application/json");
        assertThat(refused.headers().firstValue("x-ratelimit-remaining-requests")).contains("0");
        assertThat(refused.headers().firstValue("retry-after")).isPresent();
        assertThat(refused.body()).startsWith("{\"error\":{\"message\":\"").contains("\"code\":\"429\"");
        assertThat(logged).doesNotContain("ERROR").doesNotContain("WARN").doesNotContain("EJBException");
    }

    @Test
    void aRefusedTransactionalCallStartsNoTransaction() throws Exception {
        execute(Operations.createWriteAttributeOperation(TRANSACTIONS, "statistics-enabled", true));
        long started = transactionStatistic("number-of-transactions");
        long rolledBack = transactionStatistic("number-of-aborted-transactions");

        List<Integer> statuses = IntStream.range(0, 3)
                .mapToObj(i -> post("dropin/api/chat/transactional", "{\"model\":\"transactional\"}").statusCode())
                .toList();

        assertThat(statuses).containsExactly(200, 429, 429);
        assertThat(transactionStatistic("number-of-transactions") - started).isEqualTo(1);
        assertThat(transactionStatistic("number-of-aborted-transactions") - rolledBack).isZero();
    }

    @Test
    void aCutStreamOfAPojoRequestIsChargedItsPromptAndWhatItStreamed() throws Exception {
        String request = "{\"model\":\"cut\",\"messages\":[{\"role\":\"system\",\"content\":\"Be brief.\"},"
                + "{\"role\":\"user\",\"content\":\"Tell me about the weather in Lisbon today\"}]}";
        byte[] prompt = "{\"messages\":[{\"role\":\"system\",\"content\":\"Be brief.\"},{\"role\":\"user\",\"content\":\"Tell me about the weather in Lisbon today\"}]}"
                .getBytes(StandardCharsets.UTF_8);
        TokenCounter counter = TokenCounter.forModel("cut");
        long charged = counter.promptTokens(prompt, prompt.length) + counter.count("Hello there, general");

        HttpResponse<String> cut = post("dropin/api/chat/stream-cut", request);
        HttpResponse<String> next = post("dropin/api/chat/response", request);

        assertThat(cut.statusCode()).isEqualTo(200);
        assertThat(cut.body()).isEqualTo(ChatResource.CUT_CHUNK);
        assertThat(cut.headers().firstValue("x-ratelimit-remaining-tokens")).contains("1000");
        assertThat(charged).isGreaterThan(20);
        assertThat(next.headers().firstValue("x-ratelimit-remaining-tokens")).contains(String.valueOf(1000 - charged));
    }

    @Test
    void aPojoReturningMethodGetsNoHeadersButItsRefusalDoes() throws Exception {
        HttpResponse<String> pojo = post("dropin/api/chat", POJO_REQUEST);

        assertThat(pojo.statusCode()).isEqualTo(200);
        assertThat(pojo.headers().map().keySet()).noneMatch(name -> name.startsWith("x-ratelimit"));
    }

    @Test
    void bothSwitchesOnTheFilterAndTheInterceptorLimit() throws Exception {
        assertThat(statuses("dropin/api/v1/chat/completions", "filtered")).containsExactly(200, 429, 429);
        assertThat(post("dropin/api/v1/chat/completions", "{\"model\":\"pojo\"}").headers()
                .firstValue("x-ratelimit-limit-requests")).contains("100");
        assertThat(statuses("dropin/api/chat", "switch")).containsExactly(200, 429, 429);
    }

    @Test
    void absoluteOrderingLeavesTheFilterOutAndKeepsJaxRsAndTheInterceptor() throws Exception {
        HttpResponse<String> unfiltered = post("no-fragment/api/v1/chat/completions", "{\"model\":\"filtered\"}");

        assertThat(unfiltered.statusCode()).isEqualTo(200);
        assertThat(unfiltered.headers().map().keySet()).noneMatch(name -> name.startsWith("x-ratelimit"));
        assertThat(statuses("no-fragment/api/v1/chat/completions", "filtered")).containsExactly(200, 200, 200);
        assertThat(statuses("no-fragment/api/chat", "switch")).containsExactly(200, 429, 429);
    }

    @Test
    void theFilterSwitchLeavesTheInterceptorOn() throws Exception {
        assertThat(statuses("filter-off/api/v1/chat/completions", "filtered")).containsExactly(200, 200, 200);
        assertThat(post("filter-off/api/v1/chat/completions", "{\"model\":\"filtered\"}").headers().map().keySet())
                .noneMatch(name -> name.startsWith("x-ratelimit"));
        assertThat(statuses("filter-off/api/chat", "switch")).containsExactly(200, 429, 429);
    }

    @Test
    void theInterceptorSwitchLeavesTheFilterOn() throws Exception {
        assertThat(statuses("interceptor-off/api/chat", "switch")).containsExactly(200, 200, 200);
        assertThat(statuses("interceptor-off/api/v1/chat/completions", "filtered")).containsExactly(200, 429, 429);
    }

    private static final ModelNode TRANSACTIONS = Operations.createAddress("subsystem", "transactions");

    private static long transactionStatistic(String name) throws IOException {
        return execute(Operations.createReadAttributeOperation(TRANSACTIONS, name)).asLong();
    }

    /** Through the management port (arquillian.xml), authenticated as a local process like Arquillian. */
    private static ModelNode execute(ModelNode operation) throws IOException {
        ModelNode result;
        try (ModelControllerClient client = ModelControllerClient.Factory.create("remote+http", "127.0.0.1", 10090)) {
            result = client.execute(operation);
        }
        assertThat(Operations.isSuccessfulOutcome(result)).as(result.toString()).isTrue();
        return Operations.readResult(result);
    }

    private static List<Integer> statuses(String path, String model) {
        return IntStream.range(0, 3).mapToObj(i -> post(path, "{\"model\":\"" + model + "\"}").statusCode()).toList();
    }

    private static HttpResponse<String> post(String path, String json) {
        try {
            return CLIENT.send(HttpRequest.newBuilder(URI.create(ROOT + path)).timeout(Duration.ofSeconds(30))
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(json)).build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static String logSince(long offset) throws IOException {
        byte[] log = Files.readAllBytes(SERVER_LOG);
        return new String(log, (int) offset, log.length - (int) offset, StandardCharsets.UTF_8)
                .lines().collect(Collectors.joining("\n"));
    }
}
