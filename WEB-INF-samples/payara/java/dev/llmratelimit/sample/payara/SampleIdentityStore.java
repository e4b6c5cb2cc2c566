package dev.llmratelimit.sample.payara;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.security.enterprise.authentication.mechanism.http.BasicAuthenticationMechanismDefinition;
import jakarta.security.enterprise.credential.UsernamePasswordCredential;
import jakarta.security.enterprise.identitystore.CredentialValidationResult;
import jakarta.security.enterprise.identitystore.IdentityStore;

import java.util.Map;
import java.util.Set;

/**
 * The sample's users through Jakarta Security, portable across Jakarta EE servers: HTTP BASIC
 * authentication against a fixed list. A real application points this at its user store (or uses
 * {@code @DatabaseIdentityStoreDefinition} / {@code @LdapIdentityStoreDefinition}); the filter only
 * needs the principal's name.
 */
@ApplicationScoped
@BasicAuthenticationMechanismDefinition(realmName = "llm-sample")
public class SampleIdentityStore implements IdentityStore {

    private static final Map<String, String> PASSWORDS = Map.of("alice", "alice-secret", "bob", "bob-secret");

    public CredentialValidationResult validate(UsernamePasswordCredential credential) {
        String expected = PASSWORDS.get(credential.getCaller());
        return expected != null && credential.compareTo(credential.getCaller(), expected)
                ? new CredentialValidationResult(credential.getCaller(), Set.of("chat"))
                : CredentialValidationResult.INVALID_RESULT;
    }
}
