package dev.llmratelimit.servlet;

import dev.llmratelimit.chat.ChatRequest;
import dev.llmratelimit.chat.IncludeUsageRewriter;
import dev.llmratelimit.chat.ModelRewriter;
import dev.llmratelimit.chat.InvalidChatRequestException;
import dev.llmratelimit.config.ConfigurationLoader;
import dev.llmratelimit.config.InternalFailures;
import dev.llmratelimit.config.RateLimitContext;
import dev.llmratelimit.config.RateLimitProperties;
import dev.llmratelimit.config.RateLimitRuntime;
import dev.llmratelimit.config.ResolvedCaller;
import dev.llmratelimit.engine.Admission;
import dev.llmratelimit.engine.CallEnding;
import dev.llmratelimit.http.ErrorResponse;
import dev.llmratelimit.http.RateLimitHeaderValues;
import dev.llmratelimit.identity.Caller;
import dev.llmratelimit.observe.StatusSettings;
import dev.llmratelimit.usage.EndpointShape;
import dev.llmratelimit.wait.WaitRoom;
import jakarta.servlet.DispatcherType;
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
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The filter in front of the endpoints that spend a model's quota (chat, legacy completions,
 * embeddings, the Responses API, Anthropic Messages: {@link EndpointShape}). It only translates HTTP to the engine and back:
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

    /** Response header naming the model the client asked for when a fallback served it. */
    public static final String FALLBACK_FROM = "x-ratelimit-fallback-from";

    @Inject
    RateLimitContext context;

    private RateLimitRuntime runtime;
    private boolean ownsRuntime;
    private StatusEndpoint status;
    private boolean servesStatusPage = true;

    /** For containers that instantiate the filter themselves (web.xml, web-fragment.xml, CDI). */
    public RateLimitFilter() {
    }

    /** For programmatic registration with a runtime the application built and will close. */
    public RateLimitFilter(RateLimitRuntime runtime) {
        this(runtime, true);
    }

    /**
     * For programmatic registration with a runtime the application built and will close.
     *
     * @param servesStatusPage {@code false} where another port serves the status page ({@link StatusPageFilter})
     */
    public RateLimitFilter(RateLimitRuntime runtime, boolean servesStatusPage) {
        this.runtime = runtime;
        this.servesStatusPage = servesStatusPage;
        this.status = statusEndpoint();
    }

    /**
     * Uses the shared CDI runtime where there is one and the filter has no init-params, or the one
     * {@link RateLimitStartup} built at start-up where there is no CDI; otherwise (init-params that
     * configure this filter, or no start-up listener) builds its own from MicroProfile Config
     * overlaid with the init-params, still with the application's resolver bean if CDI has one.
     */
    @Override
    public void init(FilterConfig config) {
        if (runtime == null) {
            runtime = runtimeFor(config);
        }
        status = statusEndpoint();
    }

    private StatusEndpoint statusEndpoint() {
        return new StatusEndpoint(servesStatusPage ? runtime.statusSettings() : StatusSettings.OFF, runtime.status());
    }

    private RateLimitRuntime runtimeFor(FilterConfig config) {
        boolean hasInitParameters = config.getInitParameterNames().hasMoreElements();
        if (context != null && !hasInitParameters) {
            return context.runtime();
        }
        if (!hasInitParameters && config.getServletContext().getAttribute(RateLimitStartup.RUNTIME)
                instanceof RateLimitRuntime started) {
            return started;      // RateLimitStartup built it and closes it
        }
        RateLimitRuntime own = RateLimitRuntime.create(RateLimitProperties.loader(config.getFilterName(),
                        config::getInitParameterNames, config::getInitParameter),
                context == null ? null : context.applicationCallerResolver(), Clock.systemUTC());
        ownsRuntime = true;
        return own;
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
        if (!(req instanceof HttpServletRequest request) || !(res instanceof HttpServletResponse response)) {
            chain.doFilter(req, res);
            return;
        }
        EndpointShape shape;
        if (request.getDispatcherType() == DispatcherType.ASYNC
                && request.getAttribute(WaitingRequest.RESUMED) instanceof WaitingRequest.Resumed resumed) {
            resume(request, response, chain, resumed);
        } else if ((shape = shapeToLimit(request)) != null) {
            request.setAttribute(LIMITED, Boolean.TRUE);
            limit(request, response, chain, shape);
        } else if (status.serves(request)) {
            status.serve(request, response);
        } else {
            chain.doFilter(req, res);
        }
    }

    /** The endpoint shape of a request the filter limits, else {@code null}. */
    private EndpointShape shapeToLimit(HttpServletRequest request) {
        return runtime.settings().filterEnabled()
                && "POST".equals(request.getMethod())          // methods are case-sensitive: "post" is not POST
                && request.getAttribute(LIMITED) == null
                ? ChatPaths.shapeOf(runtime.settings().pathShapes(), request) : null;
    }

    private void limit(HttpServletRequest request, HttpServletResponse response, FilterChain chain,
                       EndpointShape shape) throws IOException, ServletException {
        byte[] body = readBody(request, response, shape);
        if (body == null) {
            return;
        }
        ChatRequest chat;
        try {
            chat = ChatRequest.parse(body, body.length, DeclaredCharset.readings(request.getCharacterEncoding()), shape);
        } catch (InvalidChatRequestException e) {
            JsonErrors.write(response, shape, 400, JsonErrors.INVALID_REQUEST, "invalid_request", e.getMessage());
            return;
        }
        ModelChoice choice;
        try {
            ResolvedCaller caller = runtime.resolve(request.getUserPrincipal());
            ModelChooser chooser = new ModelChooser(runtime, caller, chat, body);
            choice = chooser.choose();
            if (!choice.permitsCall()) {
                if (!waitForCapacity(request, response, choice, chat, body, chooser, caller.caller())) {
                    refuse(response, choice.admission(), shape);
                }
                return;
            }
        } catch (RuntimeException e) {
            failedInternally(request, response, chain, body, shape, e);
            return;
        }
        if (choice.admission().plan() == null) {
            // Nothing applies to this request (an unconfigured model, no caller limit, no budget): nothing to count.
            chain.doFilter(new BufferedBodyRequest(request, body, null), response);
        } else {
            run(request, response, chain, choice, chat, body, -1);
        }
    }

    /**
     * The limiter failed on this request ({@code on-internal-error}): it goes on unlimited when the
     * setting says fail-open, else it gets 503. Whatever it had acquired is already given back.
     */
    private void failedInternally(HttpServletRequest request, HttpServletResponse response, FilterChain chain,
                                  byte[] body, EndpointShape shape, RuntimeException failure)
            throws IOException, ServletException {
        if (InternalFailures.failOpen(runtime, InternalFailures.EntryPoint.FILTER, failure)) {
            chain.doFilter(new BufferedBodyRequest(request, body, null), response);
        } else if (!response.isCommitted()) {
            JsonErrors.write(response, ErrorResponse.internalError().forShape(shape));
        }
    }

    /** The body, or null once the filter has answered 413 (too large) or 400 (it could not be read to its end). */
    private byte[] readBody(HttpServletRequest request, HttpServletResponse response, EndpointShape shape)
            throws IOException {
        byte[] body;
        try {
            body = BodyReader.read(request, runtime.settings().maxBodySize());
        } catch (IOException e) {
            JsonErrors.write(response, shape, 400, JsonErrors.INVALID_REQUEST, "invalid_request",
                    "The request body could not be read to its end.");
            return null;
        }
        if (body == null) {
            JsonErrors.write(response, shape, 413, JsonErrors.INVALID_REQUEST, "request_too_large",
                    "Request body exceeds the maximum of " + BodyReader.limit(runtime.settings().maxBodySize()) + " bytes");
        }
        return body;
    }

    /**
     * Lets a refused request wait for capacity when its model and pool allow it (docs/instead-of-429.md);
     * {@code false} when it cannot wait and is to be refused now.
     */
    private boolean waitForCapacity(HttpServletRequest request, HttpServletResponse response, ModelChoice refusal,
                                    ChatRequest chat, byte[] body, ModelChooser chooser, Caller caller)
            throws IOException {
        Admission admission = refusal.admission();
        WaitRoom room = runtime.waitRoom();
        if (room == null || admission.outcome() != Admission.Outcome.REFUSED || !request.isAsyncSupported()) {
            return false;
        }
        String pool = admission.plan().pool();
        long maxWait = runtime.waitPolicy().maxWait(chat.model(), pool).toMillis();
        if (maxWait <= 0) {
            return false;
        }
        int rank = runtime.waitPolicy().rank(runtime.limiter().policy().model(chat.model()), pool);
        WaitingRequest.start(room, request, response, chat, body, refusal, chooser::choose,
                new WaitingRequest.Place(rank, maxWait, WaitingRequest.waiterOf(caller)), runtime.clock(),
                runtime.settings().errorStyle(), failure -> InternalFailures.failOpen(runtime,
                        InternalFailures.EntryPoint.WAIT_ROOM, failure));
        return true;
    }

    /** The ASYNC dispatch of a request that waited and was then admitted. */
    private void resume(HttpServletRequest request, HttpServletResponse response, FilterChain chain,
                        WaitingRequest.Resumed resumed) throws IOException, ServletException {
        request.removeAttribute(WaitingRequest.RESUMED);
        if (!resumed.claim()) {
            return;                              // given back already: the request ended before this dispatch
        }
        if (resumed.choice() == null) {
            // Deciding it again failed and on-internal-error=fail-open: it goes on unlimited.
            chain.doFilter(new BufferedBodyRequest(request, resumed.body(), null), response);
            return;
        }
        run(request, response, chain, resumed.choice(), resumed.chat(), resumed.body(), resumed.waitedMillis());
    }

    /**
     * Calls the application with the admitted request and a response that records its usage; a
     * fallback gets the body with {@code model} rewritten.
     *
     * @param waitedMillis how long the request waited for capacity, or -1 when it did not wait
     */
    private void run(HttpServletRequest request, HttpServletResponse response, FilterChain chain, ModelChoice choice,
                     ChatRequest asked, byte[] sent, long waitedMillis)
            throws IOException, ServletException {
        Call call;
        try {
            call = prepare(request, response, choice, asked, sent, waitedMillis);
        } catch (RuntimeException e) {
            CallEnding.NOT_SERVED.settle(choice.admission());
            waitRoomSignal().run();
            failedInternally(request, response, chain, sent, asked.shape(), e);
            return;
        }
        try {
            chain.doFilter(call.forwarded(), call.exchange().response());
        } catch (IOException | ServletException | RuntimeException | Error e) {
            call.exchange().finish(e);
            throw e;
        }
        if (!call.forwarded().isAsyncStarted()) {
            call.exchange().finish(null);
        }
    }

    /** The admitted request as the application gets it, and the exchange that finishes its admission. */
    private record Call(BufferedBodyRequest forwarded, Exchange exchange) {
    }

    /**
     * Everything between the admission and the application: the body a fallback or the usage option
     * rewrites, the headers, the response that records usage. Headers are set last, so a failure
     * here leaves the response as the filter found it.
     */
    private Call prepare(HttpServletRequest request, HttpServletResponse response, ModelChoice choice,
                         ChatRequest asked, byte[] sent, long waitedMillis) {
        Admission admission = choice.admission();
        ChatRequest chat = asked;
        byte[] body = sent;
        Map<String, String> headers = new LinkedHashMap<>();
        if (choice.fallbackFrom() != null) {
            body = ModelRewriter.withModel(sent, sent.length, choice.model()).orElseThrow();
            chat = asked.withModel(choice.model());
            headers.put(FALLBACK_FROM, choice.fallbackFrom());
        }
        if (waitedMillis >= 0) {
            headers.put(WaitingRequest.WAITED_HEADER, Long.toString(waitedMillis));
        }
        // Both edits write ASCII (ModelRewriter escapes the rest) after ASCII structure, so every reading
        // the body passed keeps agreeing.
        Optional<byte[]> askingForUsage = runtime.settings().injectStreamUsage() && chat.shape().hasIncludeUsageOption()
                && chat.stream() && !chat.includeUsage()
                ? IncludeUsageRewriter.withIncludeUsage(body, body.length)
                : Optional.empty();
        RateLimitHeaderValues.forwarded(admission, chat.shape(), headers::put);
        Exchange exchange = new Exchange(admission, chat, body, response, askingForUsage.isPresent(), waitRoomSignal());
        BufferedBodyRequest forwarded = new BufferedBodyRequest(request, askingForUsage.orElse(body), exchange);
        headers.forEach(response::setHeader);
        return new Call(forwarded, exchange);
    }

    /** Wakes the waiters when a request finishes: its slot, refund or settlement may be the capacity they wait for. */
    private Runnable waitRoomSignal() {
        WaitRoom room = runtime.waitRoom();
        return room == null ? () -> { } : room::signal;
    }

    private void refuse(HttpServletResponse response, Admission admission, EndpointShape shape) throws IOException {
        JsonErrors.write(response, ErrorResponse.refusal(admission, runtime.settings().errorStyle()).forShape(shape));
    }
}
