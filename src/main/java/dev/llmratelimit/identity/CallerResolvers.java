package dev.llmratelimit.identity;

import dev.llmratelimit.policy.PolicyException;
import dev.llmratelimit.policy.PolicyParser;

import java.lang.System.Logger.Level;
import java.lang.reflect.InvocationTargetException;
import java.util.Map;

/** Builds the resolver that configuration asks for: a named class, else the built-in default. */
public final class CallerResolvers {

    public static final String PROPERTY = PolicyParser.PREFIX + "caller-resolver";

    private static final String JWT_API = "org.eclipse.microprofile.jwt.JsonWebToken";
    private static final String SPRING_SECURITY = "org.springframework.security.core.Authentication";
    private static final String SPRING_OAUTH2 = "org.springframework.security.oauth2.core.ClaimAccessor";
    private static final System.Logger LOG = System.getLogger(CallerResolvers.class.getName());

    private CallerResolvers() {
    }

    /**
     * The class named in {@value #PROPERTY} (loaded with the thread context class loader, created
     * through its public no-argument constructor), or else the default resolver: metadata principal,
     * Spring Security's authentication where it is present, MicroProfile JWT claims if the JWT API is present, static {@code principals.*}/{@code teams.*}
     * mapping.
     *
     * @throws PolicyException naming the property when the class cannot be used, or for invalid
     *                         static mapping or JWT settings
     */
    public static CallerResolver create(Map<String, String> properties) {
        String className = properties.get(PROPERTY);
        if (className != null && !className.isBlank()) {
            return instantiate(className.trim());
        }
        StaticCallerResolver staticMapping = StaticCallerResolver.fromProperties(properties);
        JwtClaimNames claims = JwtClaimNames.fromProperties(properties);
        PrincipalReader jwt = present(JWT_API) ? new JwtCallerReader(claims) : null;
        PrincipalReader spring = present(SPRING_SECURITY) ? new SpringSecurityReader(claims, present(SPRING_OAUTH2)) : null;
        if (jwt == null) {
            LOG.log(Level.DEBUG, "MicroProfile JWT API not present: its JWT claims are not read");
        }
        return new DefaultCallerResolver(firstOf(spring, jwt), staticMapping);
    }

    /** The first reader's caller, else the second's; either may be {@code null} (absent). */
    private static PrincipalReader firstOf(PrincipalReader first, PrincipalReader second) {
        if (first == null || second == null) {
            return first != null ? first : second;
        }
        return principal -> {
            Caller read = first.read(principal);
            return read != null ? read : second.read(principal);
        };
    }

    /** Checked with this library's own class loader: the one that would link the reader naming the class. */
    private static boolean present(String className) {
        try {
            Class.forName(className, false, CallerResolvers.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    private static CallerResolver instantiate(String className) {
        ClassLoader loader = Thread.currentThread().getContextClassLoader();
        Class<?> type;
        try {
            type = Class.forName(className, true, loader != null ? loader : CallerResolvers.class.getClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            throw refused(className, "class not found by the thread context class loader (" + e + ")");
        }
        if (!CallerResolver.class.isAssignableFrom(type)) {
            throw refused(className, "the class does not implement " + CallerResolver.class.getName());
        }
        try {
            return (CallerResolver) type.getConstructor().newInstance();
        } catch (NoSuchMethodException | IllegalAccessException e) {
            throw refused(className, "the class and its no-argument constructor must be public");
        } catch (InstantiationException e) {
            throw refused(className, "the class is abstract");
        } catch (InvocationTargetException e) {
            throw refused(className, "the constructor threw " + e.getCause());
        }
    }

    private static PolicyException refused(String className, String problem) {
        return new PolicyException(PROPERTY, className, problem);
    }
}
