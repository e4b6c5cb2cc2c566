package dev.llmratelimit.identity;

import java.security.Principal;

/** Reads the metadata of one kind of principal; lets the JWT reader stay unloaded when JWT is absent. */
interface PrincipalReader {

    /** The caller as the principal's own metadata describes it, or {@code null} if this is not its kind. */
    Caller read(Principal principal);
}
