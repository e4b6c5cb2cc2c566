package dev.llmratelimit.servers.dropin;

import jakarta.ws.rs.ApplicationPath;
import jakarta.ws.rs.core.Application;

/** The drop-in sample: JAX-RS resources found by scanning, as an application developer writes them. */
@ApplicationPath("api")
public class ChatApplication extends Application {
}
