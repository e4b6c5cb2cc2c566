package dev.llmratelimit.spring;

import org.springframework.security.authentication.AnonymousAuthenticationToken;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.context.SecurityContextHolder;

import java.security.Principal;

/** The authenticated caller in Spring Security's context; the only class of this package naming Spring Security. */
final class SecurityContextPrincipal {

    private SecurityContextPrincipal() {
    }

    /** The current authentication, or {@code null} when there is none or it is anonymous. */
    static Principal current() {
        Authentication authentication = SecurityContextHolder.getContext().getAuthentication();
        return authentication == null || !authentication.isAuthenticated()
                || authentication instanceof AnonymousAuthenticationToken ? null : authentication;
    }
}
