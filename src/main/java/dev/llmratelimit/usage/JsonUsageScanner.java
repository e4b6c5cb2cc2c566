package dev.llmratelimit.usage;

/**
 * Finds the top-level {@code usage} object of a JSON response while its bytes pass by, chunk by
 * chunk, without holding the body. Keys are read as clients read them: the last {@code usage} wins,
 * and the last of a figure given twice inside it. The caller learns the usage when the chunk that
 * closes the body is fed, before it forwards that chunk to the client.
 */
public final class JsonUsageScanner {

    private final ChunkedJsonTokenizer tokenizer;
    private int depth;
    private boolean inUsage;
    private boolean inDetails;
    private String field;
    private final UsageFormat format;
    private long[] figures = UsageFormat.noFigures();
    private Usage usage;
    private boolean unusable;
    private boolean ended;
    /** Reading failed on a fault of ours: the body is then charged as one without usage. */
    private boolean failed;

    /** A scanner for a chat-completion response. */
    public JsonUsageScanner() {
        this(EndpointShape.CHAT);
    }

    /** A scanner for a response of the given endpoint shape, whose usage has that shape's figures. */
    public JsonUsageScanner(EndpointShape shape) {
        this.format = UsageFormat.of(shape);
        this.tokenizer = new ChunkedJsonTokenizer(new UsageTokens(), format.fieldNames());
    }

    /**
     * Feeds the next bytes of the body.
     *
     * @return true when this chunk ended the body and it has a usable usage
     */
    public boolean feed(byte[] bytes, int offset, int length) {
        if (ended || failed || tokenizer.isBroken() || length == 0) {
            return false;
        }
        try {
            return tokenizer.feed(bytes, offset, length) && usage != null;
        } catch (RuntimeException e) {
            failed = true;
            usage = null;
            return false;
        }
    }

    /** The usage of the last {@code usage} object read so far, or {@code null} when none, or it is unusable. */
    public Usage usage() {
        return usage;
    }

    /**
     * Whether the last {@code usage} read so far is present but unusable: not an object, a figure negative,
     * fractional or not a number, or neither the input nor the output figure given. A {@code "usage": null}
     * is no usage, not an unusable one.
     */
    public boolean isUnusable() {
        return unusable;
    }

    /** The tokens of the body, as they come. */
    private final class UsageTokens implements ChunkedJsonTokenizer.Tokens {

        /** The names that matter are those of the body's object, of {@code usage} and of its details. */
        @Override
        public boolean open(boolean object) {
            boolean namesMatter = depth == 0;
            if (depth == 1 && "usage".equals(field)) {
                startUsage(object);
                namesMatter = inUsage;
            } else if (inUsage && depth == 2 && format.isDetails(field)) {
                inDetails = object;
                figures[format.detailsFigure()] = inDetails ? UsageFormat.ABSENT : UsageReader.INVALID;
                namesMatter = inDetails;
            } else {
                invalidateFigure();
            }
            depth++;
            return namesMatter;
        }

        @Override
        public boolean close() {
            depth--;
            if (inDetails && depth == 2) {
                inDetails = false;
            } else if (inUsage && depth == 1) {
                endUsage();
            }
            ended = depth == 0;
            return ended;
        }

        @Override
        public void name(String name) {
            field = name;
        }

        @Override
        public void integer(long value) {
            number(value);
        }

        @Override
        public void nul() {
            if (depth == 1 && "usage".equals(field)) {
                usage = null;                           // the last usage is none
                unusable = false;
            } else {
                set(UsageFormat.ABSENT);
            }
        }

        @Override
        public void scalar() {
            JsonUsageScanner.this.scalar();
        }
    }

    private void startUsage(boolean isObject) {
        inUsage = isObject;
        figures = UsageFormat.noFigures();
        if (!isObject) {
            usage = null;
            unusable = true;
        }
    }

    private void endUsage() {
        inUsage = false;
        boolean valid = true;
        for (long figure : figures) {
            valid &= figure != UsageReader.INVALID;
        }
        usage = valid ? format.usage(figures) : null;
        unusable = usage == null;
    }

    /** A string, a fraction or a boolean: invalid where a figure is expected. */
    private void scalar() {
        if (depth == 1 && "usage".equals(field)) {
            usage = null;
            unusable = true;
        } else if (inUsage && depth == 2 && format.isDetails(field)) {
            figures[format.detailsFigure()] = UsageReader.INVALID;
        } else {
            invalidateFigure();
        }
    }

    private void invalidateFigure() {
        set(UsageReader.INVALID);
    }

    /** The figure the current value is, or {@link UsageFormat#NONE}. */
    private int figure() {
        if (inDetails && depth == 3) {
            return format.detailFigure(field);
        }
        return inUsage && depth == 2 ? format.figure(field) : UsageFormat.NONE;
    }

    private void number(long value) {
        if (depth == 1 && "usage".equals(field) || inUsage && depth == 2 && format.isDetails(field)) {
            scalar();
            return;
        }
        set(value < 0 ? UsageReader.INVALID : value);
    }

    private void set(long value) {
        int figure = figure();
        if (figure != UsageFormat.NONE) {
            figures[figure] = value;
        }
    }
}
