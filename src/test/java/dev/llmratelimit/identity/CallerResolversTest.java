package dev.llmratelimit.identity;

import dev.llmratelimit.policy.PolicyException;
import org.junit.jupiter.api.Test;

import java.net.URL;
import java.net.URLClassLoader;
import java.security.Principal;
import java.util.Map;

import static dev.llmratelimit.identity.StaticCallerResolverTest.named;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class CallerResolversTest {

    private static final String PROPERTY = "llm.ratelimit.caller-resolver";

    public static class FixedResolver implements CallerResolver {
        @Override
        public Caller resolve(Principal principal) {
            return new Caller(principal == null ? null : principal.getName(), "fixed-team", "fixed-team-priority", "fixed");
        }
    }

    public static class NoDefaultConstructor implements CallerResolver {
        public NoDefaultConstructor(String unused) {
        }

        @Override
        public Caller resolve(Principal principal) {
            return Caller.ANONYMOUS;
        }
    }

    public static class FailingConstructor implements CallerResolver {
        public FailingConstructor() {
            throw new IllegalStateException("no licence");
        }

        @Override
        public Caller resolve(Principal principal) {
            return Caller.ANONYMOUS;
        }
    }

    public abstract static class AbstractResolver implements CallerResolver {
        public AbstractResolver() {
        }
    }

    @Test
    void aConfiguredClassReplacesTheDefault() {
        CallerResolver resolver = CallerResolvers.create(Map.of(
                PROPERTY, " " + FixedResolver.class.getName() + " ",
                "llm.ratelimit.principals.alice.priority", "dev"));

        assertThat(resolver).isInstanceOf(FixedResolver.class);
        assertThat(resolver.resolve(named("alice")))
                .isEqualTo(new Caller("alice", "fixed-team", "fixed-team-priority", "fixed"));
    }

    @Test
    void withoutAConfiguredClassTheDefaultIsBuilt() {
        CallerResolver resolver = CallerResolvers.create(Map.of(PROPERTY, " "));

        assertThat(resolver).isInstanceOf(DefaultCallerResolver.class);
    }

    @Test
    void theClassIsLoadedWithTheThreadContextClassLoader() throws Exception {
        Thread thread = Thread.currentThread();
        ClassLoader original = thread.getContextClassLoader();
        try (URLClassLoader empty = new URLClassLoader(new URL[0], ClassLoader.getPlatformClassLoader())) {
            thread.setContextClassLoader(empty);
            assertThatThrownBy(() -> CallerResolvers.create(Map.of(PROPERTY, FixedResolver.class.getName())))
                    .isInstanceOf(PolicyException.class)
                    .hasMessageStartingWith("Invalid configuration llm.ratelimit.caller-resolver="
                            + FixedResolver.class.getName() + ": class not found by the thread context class loader");
        } finally {
            thread.setContextClassLoader(original);
        }
    }

    @Test
    void anUnknownClassFailsNamingTheProperty() {
        assertThatThrownBy(() -> CallerResolvers.create(Map.of(PROPERTY, "com.example.Missing")))
                .isInstanceOf(PolicyException.class)
                .hasMessage("Invalid configuration llm.ratelimit.caller-resolver=com.example.Missing:"
                        + " class not found by the thread context class loader"
                        + " (java.lang.ClassNotFoundException: com.example.Missing)");
    }

    @Test
    void aClassThatIsNoResolverFails() {
        assertThatThrownBy(() -> CallerResolvers.create(Map.of(PROPERTY, "java.lang.String")))
                .isInstanceOf(PolicyException.class)
                .hasMessage("Invalid configuration llm.ratelimit.caller-resolver=java.lang.String:"
                        + " the class does not implement dev.llmratelimit.identity.CallerResolver");
    }

    @Test
    void aClassWithoutPublicNoArgumentConstructorFails() {
        String name = NoDefaultConstructor.class.getName();
        assertThatThrownBy(() -> CallerResolvers.create(Map.of(PROPERTY, name)))
                .isInstanceOf(PolicyException.class)
                .hasMessage("Invalid configuration llm.ratelimit.caller-resolver=" + name
                        + ": the class and its no-argument constructor must be public");
    }

    @Test
    void aFailingConstructorIsReported() {
        String name = FailingConstructor.class.getName();
        assertThatThrownBy(() -> CallerResolvers.create(Map.of(PROPERTY, name)))
                .isInstanceOf(PolicyException.class)
                .hasMessage("Invalid configuration llm.ratelimit.caller-resolver=" + name
                        + ": the constructor threw java.lang.IllegalStateException: no licence");
    }

    @Test
    void anAbstractClassFails() {
        String name = AbstractResolver.class.getName();
        assertThatThrownBy(() -> CallerResolvers.create(Map.of(PROPERTY, name)))
                .isInstanceOf(PolicyException.class)
                .hasMessage("Invalid configuration llm.ratelimit.caller-resolver=" + name + ": the class is abstract");
    }

    @Test
    void anUnknownJwtSettingFails() {
        assertThatThrownBy(() -> CallerResolvers.create(Map.of("llm.ratelimit.jwt.priority", "tier")))
                .isInstanceOf(PolicyException.class)
                .hasMessage("Invalid configuration llm.ratelimit.jwt.priority=tier: unknown JWT setting (expected"
                        + " priority-claim, metadata-claim, team-claim, team-priority-claim, team-metadata-claim, user-claim or user-metadata-claim)");
    }

    @Test
    void anEmptyClaimNameFails() {
        assertThatThrownBy(() -> CallerResolvers.create(Map.of("llm.ratelimit.jwt.team-claim", "")))
                .isInstanceOf(PolicyException.class)
                .hasMessage("Invalid configuration llm.ratelimit.jwt.team-claim=: a claim name must not be empty");
    }

    /**
     * Loads the library's classes in a class loader that has no MicroProfile JWT (as on plain Tomcat)
     * and resolves a principal through the default resolver there.
     */
    @Test
    void theDefaultResolverWorksWithoutTheJwtApi() throws Exception {
        URL classes = CallerResolvers.class.getProtectionDomain().getCodeSource().getLocation();
        try (URLClassLoader withoutJwt = new URLClassLoader(new URL[]{classes}, ClassLoader.getPlatformClassLoader())) {
            assertThatThrownBy(() -> withoutJwt.loadClass("org.eclipse.microprofile.jwt.JsonWebToken"))
                    .isInstanceOf(ClassNotFoundException.class);
            Class<?> factory = withoutJwt.loadClass(CallerResolvers.class.getName());
            assertThat(factory).isNotSameAs(CallerResolvers.class);
            Object resolver = factory.getMethod("create", Map.class).invoke(null, Map.of(
                    "llm.ratelimit.principals.alice.priority", "dev",
                    "llm.ratelimit.principals.alice.team", "team-a",
                    "llm.ratelimit.teams.team-a.priority", "prod"));
            Class<?> resolverType = withoutJwt.loadClass(CallerResolver.class.getName());
            Object caller = resolverType.getMethod("resolve", Principal.class).invoke(resolver, named("alice"));

            assertThat(caller.getClass().getName()).isEqualTo(Caller.class.getName());
            assertThat(caller.getClass()).isNotSameAs(Caller.class);
            assertThat(caller.getClass().getMethod("ownPriority").invoke(caller)).isEqualTo("dev");
            assertThat(caller.getClass().getMethod("teamPriority").invoke(caller)).isEqualTo("prod");
            assertThat(caller.getClass().getMethod("team").invoke(caller)).isEqualTo("team-a");
        }
    }
}
