package dev.llmratelimit.servlet;

import dev.llmratelimit.chat.ChatRequest;
import dev.llmratelimit.chat.IncludeUsageRewriter;
import dev.llmratelimit.chat.InvalidChatRequestException;
import dev.llmratelimit.config.RateLimitContext;
import dev.llmratelimit.config.RateLimitProperties;
import dev.llmratelimit.config.RateLimitRuntime;
import dev.llmratelimit.engine.Admission;
import dev.llmratelimit.engine.AdmissionRequest;
import dev.llmratelimit.engine.PromptTokens;
import dev.llmratelimit.engine.ThrottledLog;
import dev.llmratelimit.http.ErrorResponse;
import dev.llmratelimit.http.RateLimitHeaderValues;
import dev.llmratelimit.identity.Caller;
import dev.llmratelimit.usage.TokenCounter;
import jakarta.inject.Inject;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.FilterConfig;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;
import java.util.Optional;

/**
 * The filter in front of chat-completion endpoints. It only translates HTTP to the engine and back:
 * read the body once, decide, answer 4xx/5xx itself or call the application with a response that
 * records usage.
 *
 * <p>Where the container has CDI it injects the shared {@link RateLimitContext}; elsewhere it builds
 * its runtime from MicroProfile Config and its init-params. It carries no scope annotation on purpose
 * (Payara drops a scoped filter).
 */
public class RateLimitFilter implements Filter {

    /** Request attribute that marks a request as already limited, so a second filter instance skips it. */
    public static final String LIMITED = RateLimitFilter.class.getName() + ".LIMITED";

    private static final ThrottledLog INTERNAL_FAILURES = new ThrottledLog(RateLimitFilter.class, System.Logger.Level.ERROR);

    @Inject
    RateLimitContext context;

    private RateLimitRuntime runtime;
    private boolean ownsRuntime;

    /** For containers that instantiate the filter themselves (web.xml, web-fragment.xml, CDI). */
    public RateLimitFilter() {
    }

    /** For programmatic registration with a runtime the application built and will close. */
    public RateLimitFilter(RateLimitRuntime runtime) {
        this.runtime = runtime;
    }

    /**
     * Uses the shared CDI runtime where there is one and the filter has no init-params; otherwise
     * (no CDI, or init-params that configure this filter) builds its own from MicroProfile Config
     * overlaid with the init-params, still with the application's resolver bean if CDI has one.
     */
    @Override
    public void init(FilterConfig config) {
        if (runtime != null) {
            return;
        }
        boolean hasInitParameters = config.getInitParameterNames().hasMoreElements();
        if (context != null && !hasInitParameters) {
            runtime = context.runtime();
            return;
        }
        runtime = RateLimitRuntime.create(RateLimitProperties.withInitParameters(
                RateLimitProperties.fromMicroProfileConfig(), config.getInitParameterNames(),
                config::getInitParameter), context == null ? null : context.applicationCallerResolver());
        ownsRuntime = true;
    }

    @Override
    public void destroy() {
        if (ownsRuntime) {
            runtime.close();
        }
    }

    @Override
    public void doFilter(ServletRequest req, ServletResponse res, FilterChain chain)
            throws IOException, ServletException {
        if (req instanceof HttpServletRequest request && res instanceof HttpServletResponse response
                && applies(request)) {
            request.setAttribute(LIMITED, Boolean.TRUE);
            limit(request, response, chain);
        } else {
            chain.doFilter(req, res);
        }
    }

    private boolean applies(HttpServletRequest request) {
        return runtime.settings().enabled()
                && "POST".equalsIgnoreCase(request.getMethod())
                && request.getAttribute(LIMITED) == null
                && ChatPaths.matches(runtime.settings().paths(), request);
    }

    private void limit(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        byte[] body = BodyReader.read(request, runtime.settings().maxBodySize());
        if (body == null) {
            JsonErrors.write(response, 413, JsonErrors.INVALID_REQUEST, "request_too_large",
                    "Request body exceeds the maximum of " + runtime.settings().maxBodySize() + " bytes");
            return;
        }
        ChatRequest chat;
        byte[] json;
        try {
            json = DeclaredCharset.toUtf8(body, request.getCharacterEncoding());
            chat = ChatRequest.parse(json, json.length);
        } catch (InvalidChatRequestException e) {
            JsonErrors.write(response, 400, JsonErrors.INVALID_REQUEST, "invalid_request", e.getMessage());
            return;
        }
        Admission admission;
        try {
            admission = admit(request, chat, json);
        } catch (RuntimeException e) {
            INTERNAL_FAILURES.log("Rate limiting failed; request passed through unlimited", e);
            chain.doFilter(new BufferedBodyRequest(request, body, null), response);
            return;
        }
        if (!admission.permitsCall()) {
            refuse(response, admission);
        } else if (admission.plan() == null) {
            // An unconfigured model (also one that shadow mode lets through): untouched, nothing to count.
            chain.doFilter(new BufferedBodyRequest(request, body, null), response);
        } else {
            run(request, response, chain, admission, chat, body, json);
        }
    }

    /** Calls the application with the admitted request and a response that records its usage. */
    private void run(HttpServletRequest request, HttpServletResponse response, FilterChain chain, Admission admission,
                     ChatRequest chat, byte[] body, byte[] json) throws IOException, ServletException {
        Optional<byte[]> askingForUsage = runtime.settings().injectStreamUsage() && chat.stream() && !chat.includeUsage()
                ? IncludeUsageRewriter.withIncludeUsage(json, json.length)
                        .map(rewritten -> DeclaredCharset.fromUtf8(rewritten, request.getCharacterEncoding()))
                : Optional.empty();
        RateLimitHeaderValues.forwarded(admission, response::setHeader);
        Exchange exchange = new Exchange(admission, chat, json, response, askingForUsage.isPresent());
        BufferedBodyRequest forwarded = new BufferedBodyRequest(request, askingForUsage.orElse(body), exchange);
        try {
            chain.doFilter(forwarded, exchange.response());
        } catch (IOException | ServletException | RuntimeException | Error e) {
            exchange.finish(e);
            throw e;
        }
        if (!forwarded.isAsyncStarted()) {
            exchange.finish(null);
        }
    }

    /**
     * Decides; the engine runs the tokenizer only when an estimate needs the prompt (and not when the
     * body's byte length already shows the request is refused).
     */
    private Admission admit(HttpServletRequest request, ChatRequest chat, byte[] json) {
        Caller caller = runtime.callerResolver().resolve(request.getUserPrincipal());
        PromptTokens prompt = PromptTokens.lazy(() -> TokenCounter.forModel(chat.model()).promptTokens(json, json.length),
                json.length);
        return runtime.limiter().admit(AdmissionRequest.of(chat.model(), caller.teamPriority(), caller.ownPriority())
                .withCallers(runtime.callerLimits().planFor(caller)).withIdentity(caller.budgetIdentity())
                .withTokens(prompt, chat.maxTokens()));
    }

    private static void refuse(HttpServletResponse response, Admission admission) throws IOException {
        JsonErrors.write(response, ErrorResponse.refusal(admission));
    }
}
