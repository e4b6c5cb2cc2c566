package dev.llmratelimit.samples.springboot;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.jwk.gen.RSAKeyGenerator;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.core.env.Environment;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Instant;
import java.util.Base64;
import java.util.Date;
import java.util.HexFormat;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Callers of a JWT resource server: Spring Security checks the token's RS256 signature against the issuer's
 * public key ({@code spring.security.oauth2.resourceserver.jwt.public-key-location}), and the limiter reads
 * the caller from its claims: the principal from {@code sub}, the priority from the claim the application
 * names ({@code llm.ratelimit.jwt.priority-claim=tier}), the key's limits from the {@code metadata} claim.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = "llm.ratelimit.jwt.priority-claim=tier")
@DirtiesContext
class JwtCallersTest {

    private static final RSAKey ISSUER = rsaKey();
    private static final RSAKey STRANGER = rsaKey();

    @Autowired
    Environment environment;

    @DynamicPropertySource
    static void issuerPublicKey(DynamicPropertyRegistry registry) throws IOException, JOSEException {
        Path pem = Files.createTempFile("issuer-public", ".pem");
        pem.toFile().deleteOnExit();
        Files.writeString(pem, "-----BEGIN PUBLIC KEY-----\n"
                + Base64.getMimeEncoder().encodeToString(ISSUER.toPublicKey().getEncoded())
                + "\n-----END PUBLIC KEY-----\n");
        registry.add("spring.security.oauth2.resourceserver.jwt.public-key-location", () -> pem.toUri().toString());
    }

    @Test
    void theTokensClaimsGiveThePriorityAndTheKeysLimit() throws Exception {
        Calls calls = Calls.to(environment);
        String token = "Bearer " + signed(ISSUER, Map.of("sub", "svc-batch", "tier", "dev", "metadata", Map.of("rpm-limit", 1)));

        HttpResponse<String> first = calls.chatAuthorized(token, "gpt-4o");
        HttpResponse<String> second = calls.chatAuthorized(token, "gpt-4o");

        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(second.statusCode()).isEqualTo(429);
        assertThat(second.headers().firstValue("x-ratelimit-priority")).hasValue("dev");
        assertThat(second.body()).isEqualTo("{\"error\":{\"message\":\"Rate limit exceeded for key: sha256:" + sha256("svc-batch")
                + ". Limit type: requests, Limit: 1, Current: 1\",\"type\":\"throttling_error\",\"param\":null,\"code\":\"429\"}}");
    }

    @Test
    void anotherCallerHasItsOwnCounter() throws Exception {
        Calls calls = Calls.to(environment);
        String limited = "Bearer " + signed(ISSUER, Map.of("sub", "svc-a", "metadata", Map.of("rpm-limit", 1)));
        String other = "Bearer " + signed(ISSUER, Map.of("sub", "svc-b", "metadata", Map.of("rpm-limit", 1)));

        assertThat(calls.chatAuthorized(limited, "gpt-4o").statusCode()).isEqualTo(200);
        assertThat(calls.chatAuthorized(other, "gpt-4o").statusCode()).isEqualTo(200);
        assertThat(calls.chatAuthorized(limited, "gpt-4o").statusCode()).isEqualTo(429);
    }

    @Test
    void aTokenSignedByAnotherKeyNeverReachesTheLimiter() throws Exception {
        String forged = "Bearer " + signed(STRANGER, Map.of("sub", "svc-batch", "tier", "prod"));

        HttpResponse<String> answer = Calls.to(environment).chatAuthorized(forged, "gpt-4o");

        assertThat(answer.statusCode()).isEqualTo(401);
        assertThat(answer.headers().firstValue("x-ratelimit-priority")).isEmpty();
    }

    private static String signed(RSAKey key, Map<String, Object> claims) throws JOSEException {
        JWTClaimsSet.Builder set = new JWTClaimsSet.Builder().expirationTime(Date.from(Instant.now().plusSeconds(600)));
        claims.forEach(set::claim);
        SignedJWT jwt = new SignedJWT(new JWSHeader(JWSAlgorithm.RS256), set.build());
        jwt.sign(new RSASSASigner(key));
        return jwt.serialize();
    }

    private static RSAKey rsaKey() {
        try {
            return new RSAKeyGenerator(2048).generate();
        } catch (JOSEException e) {
            throw new IllegalStateException(e);
        }
    }

    /** How a refusal names a key: {@code sha256:} and the first 12 hex digits of its SHA-256. */
    private static String sha256(String key) throws Exception {
        byte[] digest = MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8));
        return HexFormat.of().formatHex(digest).substring(0, 12);
    }
}
