package dev.llmratelimit.usage;

/**
 * Reads UTF-8 JSON chunk by chunk and tells its tokens to a {@link Tokens} listener, holding no more
 * of the text than one field name. It accepts what Jackson's default non-blocking parser accepts, with
 * its nesting and name-length limits (strict JSON: no comments, no single quotes, no leading zeros,
 * valid UTF-8 sequences in strings, values at the root one after another, byte order marks at the
 * start), and tells each token when Jackson would: a number or {@code true}, {@code false}, {@code null} once the byte after it shows it ended.
 * So a body reads as it reads to the parser this stands in for. Field names are told only as far as
 * the listener cares: as one of the names it gave, escapes decoded, or as {@code ""} for any other.
 * The work is a few comparisons per byte and no allocation. Once the listener asks to stop, or the
 * text is malformed, it reads nothing more.
 */
final class ChunkedJsonTokenizer {

    /** What the tokenizer found, in the order it found it. */
    interface Tokens {
        /**
         * A container opens: an object when {@code object}, else an array. Returns whether the names of
         * this object matter: the others are all told as {@code ""}, read at the cost of skipping them.
         */
        boolean open(boolean object);

        /** The innermost container closed; returns {@code true} to read no further. */
        boolean close();

        /**
         * The field name of the next value: one of the known names, or {@code ""} for any other name and
         * for every name of an object whose names do not matter.
         */
        void name(String name);

        /** A whole number, held to {@code long}'s range. */
        void integer(long value);

        void nul();

        /** A string, a fraction or exponent number, {@code true} or {@code false}. */
        void scalar();
    }

    /** Jackson's default {@code maxNestingDepth}. */
    static final int MAX_DEPTH = 1000;
    /** Jackson's default {@code maxNameLength}: bytes of a field name, escapes decoded, in UTF-8. */
    static final int MAX_NAME_BYTES = 50_000;

    private static final int VALUE = 0;
    private static final int FIRST_VALUE = 1;
    private static final int NAME = 2;
    private static final int FIRST_NAME = 3;
    private static final int COLON = 4;
    private static final int AFTER_VALUE = 5;
    private static final int STRING = 6;
    private static final int NUMBER = 7;
    private static final int LITERAL = 8;
    private static final int DONE = 9;

    private static final int N_MINUS = 0;
    private static final int N_ZERO = 1;
    private static final int N_INT = 2;
    private static final int N_DOT = 3;
    private static final int N_FRACTION = 4;
    private static final int N_EXPONENT = 5;
    private static final int N_EXPONENT_SIGN = 6;
    private static final int N_EXPONENT_DIGITS = 7;

    private static final long LONG_TENTH = Long.MAX_VALUE / 10;
    private static final int LONG_LAST_DIGIT = (int) (Long.MAX_VALUE % 10);

    private static final byte[] TRUE = {'t', 'r', 'u', 'e'};
    private static final byte[] FALSE = {'f', 'a', 'l', 's', 'e'};
    private static final byte[] NULL = {'n', 'u', 'l', 'l'};
    private static final int NO_ESCAPE = -1;
    private static final int ESCAPED = 0;

    private final Tokens tokens;
    private int state = VALUE;
    private boolean started;
    private boolean broken;
    private int depth;
    /** Bit {@code d} set: the container at depth {@code d + 1} is an object (the first 64; deeper in {@link #deepKinds}). */
    private long kinds;
    private long[] deepKinds;
    /** Bit {@code d} set: the names of the object at depth {@code d + 1} matter (never those deeper than 64). */
    private long namesMatter;

    private boolean stringIsName;
    /** {@link #NO_ESCAPE}, {@link #ESCAPED} after a backslash, or 1-4: hex digits of a {@code \\u} escape read. */
    private int escape = NO_ESCAPE;
    private int escapedChar;
    private int continuationBytes;
    private final String[] knownNames;
    private final int[] knownHashes;
    /** The name read so far, as long as it may still be a known one (ASCII, no longer than the longest). */
    private final char[] name;
    private int nameLength;
    /** {@link String#hashCode()} of the name read so far. */
    private int nameHash;
    /** The length of the name read so far, as Jackson counts it ({@link #MAX_NAME_BYTES}). */
    private int nameBytes;
    private boolean nameMatchesNothing;

    private int numberPart;
    private boolean negative;
    private boolean fraction;
    private boolean overflow;
    private long magnitude;

    private byte[] literal;
    private int literalIndex;

    /** @param knownNames the field names, all ASCII, that {@link Tokens#name} tells as themselves */
    ChunkedJsonTokenizer(Tokens tokens, String... knownNames) {
        this.tokens = tokens;
        this.knownNames = knownNames;
        this.knownHashes = new int[knownNames.length];
        int longest = 0;
        for (int k = 0; k < knownNames.length; k++) {
            longest = Math.max(longest, knownNames[k].length());
            knownHashes[k] = knownNames[k].hashCode();
        }
        this.name = new char[longest];
    }

    /** Whether the text so far is not JSON (or exceeds a limit): nothing more is read. */
    boolean isBroken() {
        return broken;
    }

    /** Reads the next bytes; returns {@code true} when the listener asked to stop in them. */
    boolean feed(byte[] bytes, int offset, int length) {
        int end = offset + length;
        int i = offset;
        if (!started && length > 0) {
            started = true;
            i = skipByteOrderMark(bytes, i, end);
        }
        while (i < end) {
            int current = state;
            if (current == STRING) {
                i = string(bytes, i, end);
            } else if (current == NUMBER) {
                i = number(bytes, i, end);
            } else if (current == LITERAL) {
                i = literal(bytes[i], i);
            } else if (current == DONE) {
                break;
            } else {
                i = structure(bytes[i] & 0xFF, i);
            }
        }
        return state == DONE && !broken;
    }

    /**
     * Jackson skips UTF-8 byte order marks at the very start, any number of them; this reads them only when
     * whole in the first chunk.
     */
    private static int skipByteOrderMark(byte[] bytes, int i, int end) {
        while (end - i >= 3 && bytes[i] == (byte) 0xEF && bytes[i + 1] == (byte) 0xBB && bytes[i + 2] == (byte) 0xBF) {
            i += 3;
        }
        return i;
    }

    private int structure(int c, int i) {
        if (c == ' ' || c == '\n' || c == '\r' || c == '\t') {
            return i + 1;
        }
        switch (state) {
            case VALUE, FIRST_VALUE -> {
                if (c == ']' && state == FIRST_VALUE) {
                    closeContainer();
                } else {
                    startValue(c);
                }
            }
            case FIRST_NAME, NAME -> {
                if (c == '}' && state == FIRST_NAME) {
                    closeContainer();
                } else if (c == '"') {
                    startString(true);
                } else {
                    fail();
                }
            }
            case COLON -> {
                if (c == ':') {
                    state = VALUE;
                } else {
                    fail();
                }
            }
            default -> afterValue(c);
        }
        return i + 1;
    }

    private void startValue(int c) {
        switch (c) {
            case '{', '[' -> openContainer(c == '{');
            case '"' -> startString(false);
            case 't' -> startLiteral(TRUE);
            case 'f' -> startLiteral(FALSE);
            case 'n' -> startLiteral(NULL);
            default -> {
                if (c == '-' || c >= '0' && c <= '9') {
                    startNumber(c);
                } else {
                    fail();
                }
            }
        }
    }

    private void afterValue(int c) {
        boolean object = isObject(depth);
        if (c == ',') {
            state = object ? NAME : VALUE;
        } else if (c == (object ? '}' : ']')) {
            closeContainer();
        } else {
            fail();
        }
    }

    private void openContainer(boolean object) {
        if (depth == MAX_DEPTH) {
            fail();
            return;
        }
        setKind(depth, object);
        boolean matter = tokens.open(object);
        if (depth < 64) {
            namesMatter = matter ? namesMatter | 1L << depth : namesMatter & ~(1L << depth);
        }
        depth++;
        state = object ? FIRST_NAME : FIRST_VALUE;
    }

    /** Closes the innermost container: the states that call this have checked the bracket matches it. */
    private void closeContainer() {
        depth--;
        if (tokens.close()) {
            state = DONE;
        } else {
            valueEnded();
        }
    }

    /** After a value: inside a container a comma or its close follows; at the root, another value. */
    private void valueEnded() {
        state = depth == 0 ? VALUE : AFTER_VALUE;
    }

    private boolean isObject(int containerDepth) {
        return containerDepth > 64 ? isDeepObject(containerDepth - 1)
                : containerDepth > 0 && (kinds & 1L << (containerDepth - 1)) != 0;
    }

    private boolean isDeepObject(int bit) {
        return (deepKinds[(bit >> 6) - 1] & 1L << (bit & 63)) != 0;
    }

    private void setKind(int bit, boolean object) {
        if (bit < 64) {
            kinds = object ? kinds | 1L << bit : kinds & ~(1L << bit);
            return;
        }
        if (deepKinds == null) {
            deepKinds = new long[(MAX_DEPTH + 63) / 64 - 1];
        }
        int word = (bit >> 6) - 1;
        deepKinds[word] = object ? deepKinds[word] | 1L << (bit & 63) : deepKinds[word] & ~(1L << (bit & 63));
    }

    private void startString(boolean isName) {
        stringIsName = isName;
        nameLength = 0;
        nameHash = 0;
        nameBytes = 0;
        nameMatchesNothing = !isName || depth > 64 || (namesMatter & 1L << (depth - 1)) == 0;
        state = STRING;
    }

    private int string(byte[] bytes, int i, int end) {
        while (i < end) {
            if (continuationBytes == 0 && escape == NO_ESCAPE) {
                int from = i;
                i = stringIsName && !nameMatchesNothing ? copyPlainBytes(bytes, i, end) : skipPlainBytes(bytes, i, end);
                if (stringIsName && (nameBytes += i - from) > MAX_NAME_BYTES) {
                    return failed(end);
                }
                if (i == end) {
                    return end;
                }
            }
            int c = bytes[i] & 0xFF;
            if (continuationBytes > 0) {
                if ((c & 0xC0) != 0x80) {
                    fail();
                    return end;
                }
                continuationBytes--;
                nameBytes++;
            } else if (escape != NO_ESCAPE) {
                if (!escaped(c)) {
                    fail();
                    return end;
                }
            } else if (c == '"') {
                endString();
                return i + 1;
            } else if (c == '\\') {
                escape = ESCAPED;
            } else if (c < 0x20) {
                fail();
                return end;
            } else if (c >= 0x80) {
                continuationBytes = c >= 0xC0 && c <= 0xDF ? 1 : c >= 0xE0 && c <= 0xEF ? 2 : c >= 0xF0 && c <= 0xF7 ? 3 : -1;
                if (continuationBytes < 0) {
                    fail();
                    return end;
                }
                nameBytes++;
                nameMatchesNothing = true;
            } else {
                appendToName(c);
            }
            i++;
        }
        return i;
    }

    /** The index of the first byte from {@code i} that is not printable ASCII other than a quote or backslash. */
    private static int skipPlainBytes(byte[] bytes, int i, int end) {
        while (i < end) {
            byte b = bytes[i];
            if (b < 0x20 || b == '"' || b == '\\') {        // bytes from 0x80 are negative
                return i;
            }
            i++;
        }
        return end;
    }

    /** As {@link #skipPlainBytes}, adding the bytes to the name, until one is not plain or the name can match nothing. */
    private int copyPlainBytes(byte[] bytes, int i, int end) {
        while (i < end) {
            byte b = bytes[i];
            if (b < 0x20 || b == '"' || b == '\\') {
                return i;
            }
            if (nameLength == name.length) {
                nameMatchesNothing = true;
                return skipPlainBytes(bytes, i, end);
            }
            name[nameLength++] = (char) b;
            nameHash = 31 * nameHash + b;
            i++;
        }
        return end;
    }

    /** One byte of an escape sequence; false when it is not one JSON allows. */
    private boolean escaped(int c) {
        if (escape == ESCAPED) {
            int meaning = switch (c) {
                case '"', '\\', '/' -> c;
                case 'b' -> '\b';
                case 'f' -> '\f';
                case 'n' -> '\n';
                case 'r' -> '\r';
                case 't' -> '\t';
                case 'u' -> -1;
                default -> -2;
            };
            if (meaning == -2) {
                return false;
            }
            if (meaning == -1) {
                escape = 1;
                escapedChar = 0;
            } else {
                escape = NO_ESCAPE;
                appendToName(meaning);
            }
            return true;
        }
        int digit = Character.digit(c, 16);
        if (digit < 0) {
            return false;
        }
        escapedChar = escapedChar << 4 | digit;
        if (escape == 4) {
            escape = NO_ESCAPE;
            appendToName(escapedChar);
        } else {
            escape++;
        }
        return true;
    }

    private void appendToName(int c) {
        if (!stringIsName) {
            return;
        }
        nameBytes += c < 0x80 ? 1 : c < 0x800 ? 2 : 3;
        if (nameMatchesNothing) {
            return;
        }
        if (c >= 0x80 || nameLength == name.length) {
            nameMatchesNothing = true;
        } else {
            name[nameLength++] = (char) c;
            nameHash = 31 * nameHash + c;
        }
    }

    private void endString() {
        if (stringIsName && nameBytes > MAX_NAME_BYTES) {
            fail();
        } else if (stringIsName) {
            tokens.name(nameMatchesNothing ? "" : knownName());
            state = COLON;
        } else {
            tokens.scalar();
            valueEnded();
        }
    }

    private String knownName() {
        for (int k = 0; k < knownNames.length; k++) {
            if (knownHashes[k] == nameHash && knownNames[k].length() == nameLength && sameChars(knownNames[k])) {
                return knownNames[k];
            }
        }
        return "";
    }

    private boolean sameChars(String known) {
        for (int i = 0; i < nameLength; i++) {
            if (known.charAt(i) != name[i]) {
                return false;
            }
        }
        return true;
    }

    private void startNumber(int c) {
        negative = c == '-';
        fraction = false;
        overflow = false;
        numberPart = negative ? N_MINUS : c == '0' ? N_ZERO : N_INT;
        magnitude = negative ? 0 : c - '0';
        state = NUMBER;
    }

    private int number(byte[] bytes, int i, int end) {
        while (i < end) {
            int c = bytes[i] & 0xFF;
            boolean digit = c >= '0' && c <= '9';
            switch (numberPart) {
                case N_MINUS -> {
                    if (!digit) {
                        return failed(end);
                    }
                    numberPart = c == '0' ? N_ZERO : N_INT;
                    magnitude = c - '0';
                }
                case N_ZERO, N_INT -> {
                    if (digit) {
                        if (numberPart == N_ZERO) {
                            return failed(end);                 // leading zeros
                        }
                        addDigit(c);
                    } else if (c == '.') {
                        numberPart = N_DOT;
                    } else if (c == 'e' || c == 'E') {
                        numberPart = N_EXPONENT;
                    } else if (numberPart == N_ZERO && !endsValue(c)) {
                        return failed(end);
                    } else {
                        return endNumber(i, end);
                    }
                }
                case N_DOT -> {
                    if (!digit) {
                        return failed(end);
                    }
                    numberPart = N_FRACTION;
                }
                case N_FRACTION -> {
                    if (c == 'e' || c == 'E') {
                        numberPart = N_EXPONENT;
                    } else if (!digit) {
                        return endNumber(i, end);
                    }
                }
                case N_EXPONENT -> {
                    if (c == '+' || c == '-') {
                        numberPart = N_EXPONENT_SIGN;
                    } else if (digit) {
                        numberPart = N_EXPONENT_DIGITS;
                    } else {
                        return failed(end);
                    }
                }
                case N_EXPONENT_SIGN -> {
                    if (!digit) {
                        return failed(end);
                    }
                    numberPart = N_EXPONENT_DIGITS;
                }
                default -> {
                    if (!digit) {
                        return endNumber(i, end);
                    }
                }
            }
            if (numberPart >= N_DOT) {
                fraction = true;
            }
            i++;
        }
        return i;
    }

    private void addDigit(int c) {
        int digit = c - '0';
        if (magnitude >= LONG_TENTH && (magnitude > LONG_TENTH || digit > LONG_LAST_DIGIT)) {
            overflow = true;
        } else {
            magnitude = magnitude * 10 + digit;
        }
    }

    /** The number ended before byte {@code i}, which is read again in the state after a value. */
    private int endNumber(int i, int end) {
        if (fraction) {
            tokens.scalar();
        } else if (overflow) {
            tokens.integer(negative ? Long.MIN_VALUE : Long.MAX_VALUE);
        } else {
            tokens.integer(negative ? -magnitude : magnitude);
        }
        valueEnded();
        return i;
    }

    private void startLiteral(byte[] expected) {
        literal = expected;
        literalIndex = 1;
        state = LITERAL;
    }

    /** A byte of a literal, or the byte after it, which must end it; that byte is then read again. */
    private int literal(byte c, int i) {
        if (literalIndex == literal.length) {
            if (!endsValue(c)) {                            // signed: a byte from 0x80 ends it, and is refused next
                return failed(i + 1);
            }
            if (literal == NULL) {
                tokens.nul();
            } else {
                tokens.scalar();
            }
            valueEnded();
            return i;
        }
        if (c != literal[literalIndex]) {
            return failed(i + 1);
        }
        literalIndex++;
        return i + 1;
    }

    /**
     * Whether a character may follow a literal or a leading zero (Jackson's test): one below {@code '0'}
     * (whitespace, a comma, a quote, ...) or a closing bracket; anything else would be part of the token.
     * Jackson tests a literal's next byte signed and a zero's unsigned, and so does this.
     */
    private static boolean endsValue(int c) {
        return c < '0' || c == ']' || c == '}';
    }

    private int failed(int end) {
        fail();
        return end;
    }

    private void fail() {
        broken = true;
        state = DONE;
    }
}
