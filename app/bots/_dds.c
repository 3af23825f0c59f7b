/*
 * The search of the exact double-dummy solver (app/bots/dds.py) in C.
 *
 * dds.solve() prepares a position in Python and builds a Search from it; Search.after(card,
 * alpha, beta) is the value still to come once the seat to move plays ``card``, searched with
 * the window (alpha, beta).  It is the same search as the Python one in dds.py, node for node:
 * the same bounds, the same move orders (ties broken the same way), the same transposition
 * table, the same node counting, so both give the same values and the same node counts.
 *
 * Every fact of the rules comes from Python at construction: the engine's BEATS table of the
 * contract, its ABOVE_TRUMP / ABOVE_PLAIN tables and play flags (for legal_mask_top, ported
 * below), the points, strengths and suit orders of the deal's Table.
 *
 * A Table is the transposition table: an open-addressing hash table on the 64-bit key
 * ``rem | leader << 32 | sweep << 34`` that never loses an entry (it grows when two thirds
 * full), so that it behaves as the Python dict does.  It outlives a Search: one table may serve
 * every solve of positions of one deal.
 *
 * Nothing is computed twice that need not be: a lead takes the entry its parent's look-ups
 * found, equivalent cards come from per-suit tables in rank order, the follower's answers to
 * a lead are worked out once per suit.
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>

#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define INF (1 << 30)
#define BROKEN 7 /* sweep code: two sides have won tricks, no capot any more */

/* the largest card-point scale and points still out accepted, so that no value overflows */
#define MAX_SCALE 1000
#define MAX_POINTS 10000

static inline int low_bit(uint32_t x)
{
#if defined(__GNUC__)
    return __builtin_ctz(x);
#else
    int i = 0;
    while (!(x & 1u)) {
        x >>= 1;
        i++;
    }
    return i;
#endif
}

static inline int high_bit(uint32_t x)
{
#if defined(__GNUC__)
    return 31 - __builtin_clz(x);
#else
    int i = 31;
    while (!(x & 0x80000000u)) {
        x <<= 1;
        i--;
    }
    return i;
#endif
}

static inline uint32_t suit_mask(int s) { return 0xFFu << (8 * s); }

/* ------------------------------------------------------------------ the table */

/* An entry is one 64-bit word, ``tag``: the key (bits 0-36), the best card + 1 (bits 37-42),
 * bit 63 set (an empty slot is 0), and the bounds ``lo``/``hi`` of the value still to come as
 * 10-bit signed numbers (bits 43-52 and 53-62).  Values past those 10 bits (a card-point
 * scale or points no variant has) turn the table *wide*: two words an entry, the bounds as two
 * 32-bit numbers in the second one.  Eight entries to a cache line keep the table small
 * enough to stay in the caches. */
typedef uint64_t Entry;

#define TAG_USED ((uint64_t)1 << 63)
#define TAG_KEY (((uint64_t)1 << 37) - 1)
#define FIRST_SHIFT 37
#define NARROW_MAX 511 /* the largest |bound| an entry of one word holds */
#define MIN_BITS 12
#define LARGE_BITS 17 /* the slots of an empty table for LARGE_LEFT tricks or more */
#define LARGE_LEFT 8

typedef struct {
    PyObject_HEAD
    Entry *slots;
    size_t count;
    int bits; /* 1 << bits slots */
    int wide; /* 0: one word an entry, 1: two */
} TableObject;

static inline size_t slot_of(uint64_t key, int bits)
{
    return (size_t)((key * UINT64_C(0x9E3779B97F4A7C15)) >> (64 - bits));
}

static inline int entry_lo(const TableObject *t, const Entry *e)
{
    return t->wide ? (int)(int32_t)(uint32_t)e[1] : (int)((int64_t)(e[0] << 11) >> 54);
}

static inline int entry_hi(const TableObject *t, const Entry *e)
{
    return t->wide ? (int)(int32_t)(uint32_t)(e[1] >> 32) : (int)((int64_t)(e[0] << 1) >> 54);
}

static inline int entry_first(const Entry *e) { return (int)((e[0] >> FIRST_SHIFT) & 63) - 1; }

static Entry *table_find(const TableObject *t, uint64_t key)
{
    size_t mask = ((size_t)1 << t->bits) - 1;
    size_t i = slot_of(key, t->bits);
    int wide = t->wide;
    for (;;) {
        Entry *e = &t->slots[i << wide];
        if (!e[0])
            return NULL;
        if ((e[0] & TAG_KEY) == key)
            return e;
        i = (i + 1) & mask;
    }
}

/* Starts loading the slot of ``key`` into the cache. */
static inline void table_prefetch(const TableObject *t, uint64_t key)
{
#if defined(__GNUC__)
    __builtin_prefetch(&t->slots[slot_of(key, t->bits) << t->wide]);
#else
    (void)t;
    (void)key;
#endif
}

/* Moves the entries into 1 << ``bits`` slots, two words an entry if ``wide``; 0, or -1 (and
 * no change) when out of memory. */
static int table_rehash(TableObject *t, int bits, int wide)
{
    if (bits > 40)
        return -1;
    size_t size = (size_t)1 << bits;
    Entry *slots = calloc(size << wide, sizeof(Entry));
    if (!slots)
        return -1;
    size_t mask = size - 1;
    size_t old = (size_t)1 << t->bits;
    for (size_t j = 0; j < old; j++) {
        const Entry *e = &t->slots[j << t->wide];
        if (!e[0])
            continue;
        size_t i = slot_of(e[0] & TAG_KEY, bits);
        while (slots[i << wide])
            i = (i + 1) & mask;
        Entry *d = &slots[i << wide];
        if (wide) {
            d[0] = e[0] & (TAG_USED | TAG_KEY | (uint64_t)63 << FIRST_SHIFT);
            d[1] = (uint32_t)entry_lo(t, e) | (uint64_t)(uint32_t)entry_hi(t, e) << 32;
        } else {
            d[0] = e[0];
        }
    }
    free(t->slots);
    t->slots = slots;
    t->bits = bits;
    t->wide = wide;
    return 0;
}

/* The entry of a key still to look up (see lead()). */
static const Entry LOOK_ENTRY[2];
#define LOOK (LOOK_ENTRY)

/* Sets the entry of ``key`` (new or replaced); 0, or -1 when out of memory. */
static int table_store(TableObject *t, uint64_t key, int lo, int hi, int first)
{
    if ((t->count + 1) * 3 > ((size_t)2 << t->bits) && table_rehash(t, t->bits + 1, t->wide) < 0)
        return -1;
    size_t mask = ((size_t)1 << t->bits) - 1;
    size_t i = slot_of(key, t->bits);
    int wide = t->wide;
    for (;;) {
        Entry *e = &t->slots[i << wide];
        if (!e[0]) {
            t->count++;
            break;
        }
        if ((e[0] & TAG_KEY) == key)
            break;
        i = (i + 1) & mask;
    }
    Entry *e = &t->slots[i << wide];
    uint64_t tag = key | (uint64_t)(first + 1) << FIRST_SHIFT | TAG_USED;
    if (wide) {
        e[0] = tag;
        e[1] = (uint32_t)lo | (uint64_t)(uint32_t)hi << 32;
    } else {
        e[0] = tag | (uint64_t)(lo & 1023) << 43 | (uint64_t)(hi & 1023) << 53;
    }
    return 0;
}

static int table_reset(TableObject *t)
{
    Entry *slots = calloc((size_t)1 << MIN_BITS, sizeof(Entry));
    if (!slots) {
        PyErr_NoMemory();
        return -1;
    }
    free(t->slots);
    t->slots = slots;
    t->bits = MIN_BITS;
    t->count = 0;
    t->wide = 0;
    return 0;
}

static PyObject *Table_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwds, ":Table", kwlist))
        return NULL;
    TableObject *self = (TableObject *)type->tp_alloc(type, 0);
    if (!self)
        return NULL;
    self->slots = NULL;
    if (table_reset(self) < 0) {
        Py_DECREF(self);
        return NULL;
    }
    return (PyObject *)self;
}

static void Table_dealloc(TableObject *self)
{
    free(self->slots);
    self->slots = NULL;
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static Py_ssize_t Table_len(TableObject *self) { return (Py_ssize_t)self->count; }

static PyObject *Table_clear(TableObject *self, PyObject *Py_UNUSED(ignored))
{
    if (table_reset(self) < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *Table_get(TableObject *self, PyObject *arg)
{
    unsigned long long key = PyLong_AsUnsignedLongLong(arg);
    if (key == (unsigned long long)-1 && PyErr_Occurred())
        return NULL;
    if (key > TAG_KEY)
        Py_RETURN_NONE;
    Entry *e = table_find(self, (uint64_t)key);
    if (!e)
        Py_RETURN_NONE;
    return Py_BuildValue("(iii)", entry_lo(self, e), entry_hi(self, e), entry_first(e));
}

static PyMethodDef Table_methods[] = {
    {"clear", (PyCFunction)Table_clear, METH_NOARGS, "Forget every entry."},
    {"get", (PyCFunction)Table_get, METH_O,
     "get(key) -> (lo, hi, best card) or None: the entry of a key ``rem | leader << 32 | "
     "sweep << 34``, as the Python solver's dict holds it."},
    {NULL, NULL, 0, NULL},
};

static PySequenceMethods Table_as_sequence = {
    .sq_length = (lenfunc)Table_len,
};

static PyTypeObject TableType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "app.bots._dds.Table",
    .tp_doc = "Table(): the solver's transposition table, kept between solves of positions of "
              "one deal (same cards, same contract); len() is its number of entries.",
    .tp_basicsize = sizeof(TableObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = Table_new,
    .tp_dealloc = (destructor)Table_dealloc,
    .tp_methods = Table_methods,
    .tp_as_sequence = &Table_as_sequence,
};

/* ------------------------------------------------------------------ the search */

typedef struct {
    PyObject_HEAD
    TableObject *tt;
    PyObject *budget; /* the exception raised past ``limit`` nodes */
    long long nodes;
    long long limit;
    jmp_buf fail; /* where an error (Budget, a bad position, no memory) ends a search */

    int n, trump, scale, capot;
    int no_trump, all_trump;
    int partner_exc;    /* four players and the partner exception: a void seat is free */
    int partner_rule;   /* flags.partner_exception, as legal_mask_top reads it */
    int overtake_plain; /* flags.overtake_plain */
    int must_undertrump;
    uint32_t trump_mask;
    int tshift;
    uint8_t beats[1024]; /* beats[top * 32 + card] */
    uint32_t above[32];  /* the Table's: stronger cards of the suit, trump order if trumpy */
    uint32_t above_trump[32], above_plain[32];
    int points[32], strength[32];
    int desc[4][8]; /* every suit's cards, strongest first */
    int over_led[4];
    int mx[4], side_of[4];
    int seat_at[8]; /* seat_at[i] = i % n, the seat ``i`` places after seat 0 */
    int bonus[8];
    int side_card[32];
    int top_trump[256];
    int sure_trumps[256];
    uint32_t covers;
    uint8_t rank_bits[4][256]; /* a suit's byte of a card mask -> bit i for its desc[s][i] */
    uint8_t same[4][8];        /* bit i of same[s][j]: desc[s][i] and desc[s][j] equivalent */
    int16_t least[4][256];     /* the fewest points of a suit's byte of cards (0 when empty) */
    int reveal_of[32]; /* duel: played card -> the card it frees, or -1 */
    int owner_of[32];  /* duel: freed card -> its seat */
    uint32_t hands[4];
    uint32_t win_over[32]; /* the cards beating each card led */

    /* the root: the seat to move, maybe in the middle of a trick */
    int leader, k, seat, bi, bc, tp, led, left, sweep0, rp0;
    uint32_t on_table, rem0;
} SearchObject;

static void fail_with(SearchObject *S, PyObject *type, const char *message)
{
    PyErr_SetString(type, message);
    longjmp(S->fail, 1);
}

static int lead(SearchObject *S, int leader, uint32_t rem, int left, int sweep, int rp, int alpha,
                int beta, const Entry *hint);

/* The sweep code once side ``ws`` has won a trick, ``rem`` still out. */
static inline int next_sweep(const SearchObject *S, int sweep, int ws, uint32_t rem)
{
    int nsweep;
    if (sweep == 0)
        nsweep = 1 + ws;
    else if (sweep != 1 + ws)
        return BROKEN;
    else
        nsweep = sweep;
    if (S->trump_mask) {
        int c = S->top_trump[(rem >> S->tshift) & 255];
        if (c >= 0 && S->side_card[c] != ws)
            return BROKEN;
    }
    return nsweep;
}

/* One suit's cards of ``m`` but those equivalent to a stronger one kept (same points, no card
 * of ``out`` between them; a card freeing a face-down card is like no other), strongest
 * first.  In rank order (``rank_bits``), a card is left out when the nearest stronger card of
 * ``m`` or ``out`` is one of ``m`` equivalent to it (``same``). */
static inline int suit_runs(const SearchObject *S, int s, uint32_t m, uint32_t out, int *keep)
{
    int sh = 8 * s;
    uint32_t mine = S->rank_bits[s][(m >> sh) & 255];
    uint32_t any = mine | S->rank_bits[s][(out >> sh) & 255];
    int count = 0;
    for (uint32_t x = mine; x; x &= x - 1) {
        int i = low_bit(x);
        uint32_t above = any & ((1u << i) - 1);
        if (above) {
            int j = high_bit(above);
            if (((mine >> j) & 1) && ((S->same[s][j] >> i) & 1))
                continue;
        }
        keep[count++] = S->desc[s][i];
    }
    return count;
}

/* The cards of ``legal``, one per class of equivalent cards, suit by suit. */
static int distinct(const SearchObject *S, uint32_t legal, uint32_t out, int *keep)
{
    int count = 0;
    for (int s = 0; s < 4; s++) {
        uint32_t m = legal & suit_mask(s);
        if (!m)
            continue;
        if (!(m & (m - 1))) {
            keep[count++] = low_bit(m);
            continue;
        }
        count += suit_runs(S, s, m, out, keep + count);
    }
    return count;
}

/* app.engine.play.legal_mask_top: the legal cards of ``hand`` on a trick led in ``led`` that
 * ``top`` wins so far. */
static uint32_t legal_mask_top(const SearchObject *S, uint32_t hand, int led, int top,
                               int partner_master)
{
    uint32_t follow = hand & suit_mask(led);
    int trump = S->trump;
    if (trump == S->no_trump)
        return follow ? follow : hand;
    if (trump == S->all_trump) {
        if (follow) {
            uint32_t up = follow & S->above_trump[top];
            return up ? up : follow;
        }
        return hand;
    }
    int top_is_trump = (top >> 3) == trump;
    if (follow) {
        if (led == trump) {
            uint32_t up = follow & S->above_trump[top];
            return up ? up : follow;
        }
        if (S->overtake_plain && !top_is_trump) {
            uint32_t up = follow & S->above_plain[top];
            return up ? up : follow;
        }
        return follow;
    }
    if (led == trump)
        return hand;
    if (S->partner_rule && partner_master)
        return hand;
    uint32_t trumps = hand & suit_mask(trump);
    if (!trumps)
        return hand;
    if (top_is_trump) {
        uint32_t higher = trumps & S->above_trump[top];
        if (higher)
            return higher;
        return S->must_undertrump ? trumps : hand;
    }
    return trumps;
}

/* The order of a follower's card: the trick is the mover's party's so far (give points, keep
 * the winners), or the card wins it (as cheaply as possible, points welcome), or neither. */
static inline int follow_order(const SearchObject *S, int c, int ours, int wins)
{
    if (ours)
        return S->points[c] * 2 - wins * 5;
    if (wins)
        return 200 - S->strength[c] - (((S->trump_mask >> c) & 1) ? 30 : 0) + S->points[c];
    return -S->points[c] * 4 - S->strength[c];
}

/* The order of a lead: masters first (no stronger card of the suit still out), by points;
 * then low cards. */
static inline int lead_order(const SearchObject *S, int c, uint32_t rem)
{
    if (!(rem & S->above[c]))
        return 100 + S->points[c] + (((S->trump_mask >> c) & 1) ? 30 : 0);
    return -S->points[c] - S->strength[c];
}

/* The fewest points of a card of ``m`` (0 when empty). */
static inline int least_points(const SearchObject *S, uint32_t m)
{
    if (!m)
        return 0;
    int s0 = low_bit(m) >> 3;
    if (!(m & ~suit_mask(s0)))
        return S->least[s0][(m >> (8 * s0)) & 255];
    int least = INF;
    for (int s = 0; s < 4; s++) {
        uint32_t b = (m >> (8 * s)) & 255;
        if (b && S->least[s][b] < least)
            least = S->least[s][b];
    }
    return least;
}

/* The follower's legal answers (of ``opp``) to a lead of ``c`` with two players, as
 * legal_mask_top gives them; ``void_legal`` are his answers when he has no card of the suit. */
static inline uint32_t answers(const SearchObject *S, uint32_t opp, int c, uint32_t void_legal)
{
    int s = c >> 3;
    uint32_t follow = opp & suit_mask(s);
    if (!follow)
        return void_legal;
    if (S->over_led[s]) {
        uint32_t up = follow & S->above[c];
        if (up)
            return up;
    }
    return follow;
}

/* The order of a lead with two players, from the follower's legal answers ``legal``: cards
 * that none of them beats first, by points, plain before trump, and the points the follower
 * must give on them; then the others, low cards first, later the fewer points the follower's
 * cheapest winner costs him, a card freeing a face-down card a little earlier. */
static inline int lead_order_two(const SearchObject *S, int c, uint32_t legal)
{
    uint32_t wins = legal & S->win_over[c];
    if (!wins)
        return 100 + S->points[c] - (((S->trump_mask >> c) & 1) ? 30 : 0) +
               least_points(S, legal);
    return -S->points[c] - S->strength[c] + least_points(S, wins) +
           (((S->covers >> c) & 1) ? 5 : 0);
}

/* The last trick: every seat has one card left, so it is counted. */
static int last_trick(const SearchObject *S, int leader, int sweep)
{
    int n = S->n;
    int bc = -1, wi = 0, tp = 10;
    for (int i = 0; i < n; i++) {
        uint32_t h = S->hands[S->seat_at[leader + i]];
        int c = h ? high_bit(h) : -1;
        /* an empty hand (no valid position has one) indexes as Python's c = -1 would */
        tp += S->points[c & 31];
        if (i == 0 || S->beats[(bc * 32 + c) & 1023]) {
            bc = c;
            wi = i;
        }
    }
    int w = S->seat_at[leader + wi];
    int gain = S->mx[w] ? tp * S->scale : -tp * S->scale;
    int ws = S->side_of[w];
    if (sweep == 0 || sweep == 1 + ws)
        return gain + S->bonus[1 + ws];
    return gain;
}

/* Duel: turns up the face-down cards that the complete trick ``table`` frees, in their
 * owners' hands; returns them as a mask (0 when the position has none). */
static inline uint32_t free_cards(SearchObject *S, uint32_t table)
{
    uint32_t freed = 0;
    for (uint32_t m = table & S->covers; m; m &= m - 1) {
        int f = S->reveal_of[low_bit(m)];
        if (f >= 0) {
            S->hands[S->owner_of[f]] |= 1u << f;
            freed |= 1u << f;
        }
    }
    return freed;
}

/* Turns the cards of ``freed`` face down again. */
static inline void cover_cards(SearchObject *S, uint32_t freed)
{
    for (; freed; freed &= freed - 1) {
        int f = low_bit(freed);
        S->hands[S->owner_of[f]] &= ~(1u << f);
    }
}

/* The trick (the cards ``table``) is complete: score it, go on from its winner's lead. */
static int finish(SearchObject *S, int leader, int bi, int tp, uint32_t table, uint32_t rem,
                  int left, int sweep, int rp, int alpha, int beta)
{
    int w = S->seat_at[leader + bi];
    int ws = S->side_of[w];
    int nsweep = sweep == BROKEN ? sweep : next_sweep(S, sweep, ws, rem);
    if (left == 1) { /* the last trick, reached in the middle of it */
        tp += 10;
        int gain = S->mx[w] ? tp * S->scale : -tp * S->scale;
        return gain + (nsweep != BROKEN ? S->bonus[nsweep] : 0);
    }
    int gain = S->mx[w] ? tp * S->scale : -tp * S->scale;
    uint32_t freed = free_cards(S, table);
    int v = gain + lead(S, w, rem, left - 1, nsweep, rp - tp, alpha - gain, beta - gain, LOOK);
    cover_cards(S, freed);
    return v;
}

/* The value still to come with ``k`` cards on the table (the mask ``table``): ``bc`` wins the
 * trick so far (at index ``bi``), which holds ``tp`` points. */
static int follow(SearchObject *S, int k, int leader, int led, int bi, int bc, int tp,
                  uint32_t table, uint32_t rem, int left, int sweep, int rp, int alpha, int beta)
{
    S->nodes++;
    int n = S->n;
    int seat = S->seat_at[leader + k];
    uint32_t hand = S->hands[seat];
    int mine = S->mx[seat];
    uint32_t legal = hand & suit_mask(led);
    if (legal) { /* following the led suit (legal_mask_top, its first case) */
        if (S->over_led[led] && (bc >> 3) == led) {
            uint32_t up = legal & S->above[bc];
            if (up)
                legal = up;
        }
    } else {
        int pm = S->partner_exc && (((bi - k) % 4 + 4) % 4) == 2;
        legal = legal_mask_top(S, hand, led, bc, pm);
    }
    if (!legal)
        fail_with(S, PyExc_ValueError, "a seat has no card to play");
    int cards[32];
    int count;
    if (!(legal & (legal - 1))) {
        cards[0] = low_bit(legal);
        count = 1;
    } else {
        count = distinct(S, legal, rem | table, cards);
        if (count > 1) {
            /* a stable sort by descending order key: equal keys keep the suit order */
            int ours = S->mx[S->seat_at[leader + bi]] == mine;
            int keys[32];
            const uint8_t *wins = S->beats + bc * 32;
            for (int i = 0; i < count; i++)
                keys[i] = follow_order(S, cards[i], ours, wins[cards[i]]);
            for (int i = 1; i < count; i++) {
                int c = cards[i], key = keys[i], j = i;
                while (j > 0 && keys[j - 1] < key) {
                    cards[j] = cards[j - 1];
                    keys[j] = keys[j - 1];
                    j--;
                }
                cards[j] = c;
                keys[j] = key;
            }
        }
    }
    const uint8_t *wins = S->beats + bc * 32;
    int scale = S->scale;
    int best = mine ? -INF : INF;
    if (k == n - 1 && left == 2) {
        /* the last card before the last trick, which is counted (as a node, the lead it is) */
        for (int i = 0; i < count; i++) {
            int c = cards[i];
            S->nodes++;
            uint32_t b = 1u << c;
            S->hands[seat] = hand & ~b;
            int w = S->seat_at[leader + (wins[c] ? k : bi)];
            int ntp = tp + S->points[c];
            int ns = sweep == BROKEN ? sweep : next_sweep(S, sweep, S->side_of[w], rem & ~b);
            uint32_t freed = free_cards(S, table | b);
            int v = (S->mx[w] ? ntp * scale : -ntp * scale) + last_trick(S, w, ns);
            cover_cards(S, freed);
            if (mine) {
                if (v > best) {
                    best = v;
                    if (v > alpha)
                        alpha = v;
                }
            } else if (v < best) {
                best = v;
                if (v < beta)
                    beta = v;
            }
            if (alpha >= beta)
                break;
        }
        S->hands[seat] = hand;
        return best;
    }
    if (k == n - 1 && left > 1) {
        /* the trick's last card: each card's outcome is a trick won and a lead */
        int ow[32], ons[32], og[32], ontp[32];
        uint32_t orest[32];
        uint64_t okey[32];
        for (int i = 0; i < count; i++) {
            int c = cards[i];
            int w = S->seat_at[leader + (wins[c] ? k : bi)];
            uint32_t rest = rem & ~(1u << c);
            int ns = sweep == BROKEN ? sweep : next_sweep(S, sweep, S->side_of[w], rest);
            int ntp = tp + S->points[c];
            ow[i] = w;
            orest[i] = rest;
            ons[i] = ns;
            og[i] = S->mx[w] ? ntp * scale : -ntp * scale;
            ontp[i] = ntp;
            okey[i] = rest | (uint64_t)w << 32 | (uint64_t)ns << 34;
            table_prefetch(S->tt, okey[i]);
        }
        const Entry *found[32];
        size_t count0 = S->tt->count;
        int bits0 = S->tt->bits;
        if (count > 1) {
            /* enhanced transposition cutoff: a trick's end already known to refute */
            for (int i = 0; i < count; i++) {
                const Entry *e = table_find(S->tt, okey[i]);
                found[i] = e;
                if (e) {
                    if (mine) {
                        int v = entry_lo(S->tt, e) + og[i];
                        if (v >= beta)
                            return v;
                    } else {
                        int v = entry_hi(S->tt, e) + og[i];
                        if (v <= alpha)
                            return v;
                    }
                }
            }
        }
        if (count == 1) {
            S->hands[seat] = hand & ~(1u << cards[0]);
            uint32_t freed = free_cards(S, table | 1u << cards[0]);
            int v = og[0] + lead(S, ow[0], orest[0], left - 1, ons[0], rp - ontp[0],
                                 alpha - og[0], beta - og[0], LOOK);
            cover_cards(S, freed);
            S->hands[seat] = hand;
            return v;
        }
        for (int i = 0; i < count; i++) {
            int g = og[i];
            S->hands[seat] = hand & ~(1u << cards[i]);
            uint32_t freed = free_cards(S, table | 1u << cards[i]);
            /* the entry found above, while the table has not moved its entries (and, for
             * none found, has not taken a new one) */
            const Entry *hint = LOOK;
            if (S->tt->bits == bits0 && (found[i] || S->tt->count == count0))
                hint = found[i];
            int v = g + lead(S, ow[i], orest[i], left - 1, ons[i], rp - ontp[i], alpha - g,
                             beta - g, hint);
            cover_cards(S, freed);
            if (mine) {
                if (v > best) {
                    best = v;
                    if (v > alpha)
                        alpha = v;
                }
            } else if (v < best) {
                best = v;
                if (v < beta)
                    beta = v;
            }
            if (alpha >= beta)
                break;
        }
        S->hands[seat] = hand;
        return best;
    }
    int last = k == n - 1;
    for (int i = 0; i < count; i++) {
        int c = cards[i];
        uint32_t b = 1u << c;
        S->hands[seat] = hand & ~b;
        int nbi = bi, nbc = bc;
        if (wins[c]) {
            nbi = k;
            nbc = c;
        }
        int v;
        if (last)
            v = finish(S, leader, nbi, tp + S->points[c], table | b, rem & ~b, left, sweep, rp,
                       alpha, beta);
        else
            v = follow(S, k + 1, leader, led, nbi, nbc, tp + S->points[c], table | b, rem & ~b,
                       left, sweep, rp, alpha, beta);
        if (mine) {
            if (v > best) {
                best = v;
                if (v > alpha)
                    alpha = v;
            }
        } else if (v < best) {
            best = v;
            if (v < beta)
                beta = v;
        }
        if (alpha >= beta)
            break;
    }
    S->hands[seat] = hand;
    return best;
}

/* The value still to come at the start of a trick, ``leader`` to lead. */
static int lead(SearchObject *S, int leader, uint32_t rem, int left, int sweep, int rp, int alpha,
                int beta, const Entry *hint)
{
    if (++S->nodes > S->limit) {
        PyErr_SetNone(S->budget);
        longjmp(S->fail, 1);
    }
    if (left == 1)
        return last_trick(S, leader, sweep);
    /* bounds: no more than the points still out, a capot only while it can happen */
    int top = rp * S->scale;
    int hi_b, lo_b;
    if (sweep == 0) {
        hi_b = top + S->capot;
        lo_b = -top - S->capot;
    } else {
        int b = S->bonus[sweep];
        hi_b = b > 0 ? top + b : top;
        lo_b = b < 0 ? -top + b : -top;
    }
    if (S->trump_mask) {
        int sure = S->sure_trumps[(rem >> S->tshift) & 255] * S->scale * 2;
        if (sure > 0)
            lo_b = sure - top;
        else if (sure < 0)
            hi_b = top + sure;
    }
    if (hi_b <= alpha)
        return hi_b;
    if (lo_b >= beta)
        return lo_b;
    uint64_t key = rem | (uint64_t)leader << 32 | (uint64_t)sweep << 34;
    int lo, hi, first;
    const Entry *e = hint == LOOK ? table_find(S->tt, key) : hint;
    if (e) {
        lo = entry_lo(S->tt, e);
        hi = entry_hi(S->tt, e);
        first = entry_first(e);
        if (lo >= beta || lo == hi)
            return lo;
        if (hi <= alpha)
            return hi;
        if (lo > alpha)
            alpha = lo;
        if (hi < beta)
            beta = hi;
    } else {
        lo = lo_b;
        hi = hi_b;
        first = -1;
    }
    int a0 = alpha, b0 = beta;
    int mine = S->mx[leader];
    uint32_t hand = S->hands[leader];
    int best = mine ? -INF : INF;
    int best_c = -1;
    /* the table's best card first, searched before the others are ordered (often it is
     * enough); it is one of the cards tried here, which the key (the cards still out, so
     * every hand) decides */
    int tried = -1;
    if (first >= 0 && ((hand >> first) & 1)) {
        tried = first;
        uint32_t b = 1u << first;
        S->hands[leader] = hand & ~b;
        best = follow(S, 1, leader, first >> 3, 0, first, S->points[first], b, rem & ~b, left,
                      sweep, rp, alpha, beta);
        best_c = first;
        if (mine) {
            if (best > alpha)
                alpha = best;
        } else if (best < beta) {
            beta = best;
        }
    }
    if (alpha < beta) {
        /* the kept cards of each suit, each as (its lead order + 64) * 32 + card, sorted
         * down */
        int two = S->n == 2;
        uint32_t opp = two ? S->hands[1 - leader] : 0;
        int cards[32], enc[32];
        int count = 0;
        for (int s = 0; s < 4; s++) {
            uint32_t m = hand & suit_mask(s);
            if (!m)
                continue;
            int base = count;
            if (!(m & (m - 1)))
                cards[count++] = low_bit(m);
            else
                count += suit_runs(S, s, m, rem, cards + count);
            if (two) {
                /* void in the suit, the follower must trump a plain card if he can */
                uint32_t void_legal = opp;
                if (S->trump_mask && s != S->trump && (opp & S->trump_mask))
                    void_legal = opp & S->trump_mask;
                for (int i = base; i < count; i++) {
                    int c = cards[i];
                    int order = lead_order_two(S, c, answers(S, opp, c, void_legal));
                    enc[i] = (order + 64) * 32 + c;
                }
            } else {
                for (int i = base; i < count; i++) {
                    int c = cards[i];
                    enc[i] = (lead_order(S, c, rem) + 64) * 32 + c;
                }
            }
        }
        if (!count)
            fail_with(S, PyExc_ValueError, "a seat has no card to lead");
        for (int i = 1; i < count; i++) {
            int x = enc[i], j = i;
            while (j > 0 && enc[j - 1] < x) {
                enc[j] = enc[j - 1];
                j--;
            }
            enc[j] = x;
        }
        for (int i = 0; i < count; i++) {
            int c = enc[i] & 31;
            if (c == tried)
                continue;
            uint32_t b = 1u << c;
            S->hands[leader] = hand & ~b;
            int v = follow(S, 1, leader, c >> 3, 0, c, S->points[c], b, rem & ~b, left, sweep,
                           rp, alpha, beta);
            if (mine) {
                if (v > best) {
                    best = v;
                    best_c = c;
                    if (v > alpha)
                        alpha = v;
                }
            } else if (v < best) {
                best = v;
                best_c = c;
                if (v < beta)
                    beta = v;
            }
            if (alpha >= beta)
                break;
        }
    }
    S->hands[leader] = hand;
    if (best <= a0)
        hi = best;
    else if (best >= b0)
        lo = best;
    else
        lo = hi = best;
    if (table_store(S->tt, key, lo, hi, best_c) < 0) {
        PyErr_NoMemory();
        longjmp(S->fail, 1);
    }
    return best;
}

/* ------------------------------------------------------------------ Search: construction */

/* Reads ``count`` ints of ``seq`` in [lo, hi] into ``out``; 0, or -1 with an exception. */
static int read_ints(PyObject *seq, const char *name, int *out, Py_ssize_t count, long lo,
                     long hi)
{
    PyObject *fast = PySequence_Fast(seq, name);
    if (!fast)
        return -1;
    if (PySequence_Fast_GET_SIZE(fast) != count) {
        PyErr_Format(PyExc_ValueError, "%s: %zd items expected", name, count);
        Py_DECREF(fast);
        return -1;
    }
    for (Py_ssize_t i = 0; i < count; i++) {
        long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(fast, i));
        if (v == -1 && PyErr_Occurred()) {
            Py_DECREF(fast);
            return -1;
        }
        if (v < lo || v > hi) {
            PyErr_Format(PyExc_ValueError, "%s: %ld out of range", name, v);
            Py_DECREF(fast);
            return -1;
        }
        out[i] = (int)v;
    }
    Py_DECREF(fast);
    return 0;
}

/* Reads ``count`` card masks (ints below 2**32) of ``seq`` into ``out``. */
static int read_masks(PyObject *seq, const char *name, uint32_t *out, Py_ssize_t count)
{
    PyObject *fast = PySequence_Fast(seq, name);
    if (!fast)
        return -1;
    if (PySequence_Fast_GET_SIZE(fast) != count) {
        PyErr_Format(PyExc_ValueError, "%s: %zd items expected", name, count);
        Py_DECREF(fast);
        return -1;
    }
    for (Py_ssize_t i = 0; i < count; i++) {
        unsigned long long v = PyLong_AsUnsignedLongLong(PySequence_Fast_GET_ITEM(fast, i));
        if (v == (unsigned long long)-1 && PyErr_Occurred()) {
            Py_DECREF(fast);
            return -1;
        }
        if (v >> 32) {
            PyErr_Format(PyExc_ValueError, "%s: not a card mask", name);
            Py_DECREF(fast);
            return -1;
        }
        out[i] = (uint32_t)v;
    }
    Py_DECREF(fast);
    return 0;
}

static int read_mask(PyObject *obj, const char *name, uint32_t *out)
{
    unsigned long long v = PyLong_AsUnsignedLongLong(obj);
    if (v == (unsigned long long)-1 && PyErr_Occurred())
        return -1;
    if (v >> 32) {
        PyErr_Format(PyExc_ValueError, "%s: not a card mask", name);
        return -1;
    }
    *out = (uint32_t)v;
    return 0;
}

/* Reads a {card: card} dict (the duel's ``reveal``) or {card: seat} (its ``owner``). */
static int read_card_map(PyObject *map, const char *name, int *out, long hi)
{
    if (!PyDict_Check(map)) {
        PyErr_Format(PyExc_TypeError, "%s: a dict expected", name);
        return -1;
    }
    PyObject *key, *value;
    Py_ssize_t pos = 0;
    while (PyDict_Next(map, &pos, &key, &value)) {
        long c = PyLong_AsLong(key);
        if (c == -1 && PyErr_Occurred())
            return -1;
        long v = PyLong_AsLong(value);
        if (v == -1 && PyErr_Occurred())
            return -1;
        if (c < 0 || c > 31 || v < 0 || v > hi) {
            PyErr_Format(PyExc_ValueError, "%s: %ld -> %ld out of range", name, c, v);
            return -1;
        }
        out[c] = (int)v;
    }
    return 0;
}

/* The tables the search derives from the position: the best trump still out per trump byte,
 * the points of the run of trumps from it that one party holds, the over-led rule per suit. */
static void derive(SearchObject *S, const int *party_card)
{
    for (int s = 0; s < 4; s++) {
        for (int byte = 0; byte < 256; byte++) {
            int bits = 0, least = INF;
            for (int i = 0; i < 8; i++) {
                int c = S->desc[s][i];
                if ((byte >> (c - 8 * s)) & 1) {
                    bits |= 1 << i;
                    if (S->points[c] < least)
                        least = S->points[c];
                }
            }
            S->rank_bits[s][byte] = (uint8_t)bits;
            S->least[s][byte] = (int16_t)(byte ? least : 0);
        }
        for (int j = 0; j < 8; j++) {
            int a = S->desc[s][j];
            S->same[s][j] = 0;
            for (int i = 0; i < 8; i++) {
                int b = S->desc[s][i];
                if (i != j && S->points[a] == S->points[b] && !((S->covers >> a) & 1) &&
                    !((S->covers >> b) & 1))
                    S->same[s][j] |= (uint8_t)(1 << i);
            }
        }
    }
    for (int s = 0; s < 4; s++)
        S->over_led[s] = S->trump != S->no_trump &&
                         (S->trump == S->all_trump || s == S->trump || S->overtake_plain);
    for (int byte = 0; byte < 256; byte++) {
        S->top_trump[byte] = -1;
        S->sure_trumps[byte] = 0;
    }
    if (!S->trump_mask)
        return;
    const int *desc = S->desc[S->trump];
    for (int byte = 1; byte < 256; byte++) {
        int first = -1, who = 0, pts = 0;
        for (int i = 0; i < 8; i++) {
            int c = desc[i];
            if (!((byte >> (c - S->tshift)) & 1))
                continue;
            if (first < 0) {
                first = c;
                who = party_card[c];
            } else if (party_card[c] != who) {
                break;
            }
            pts += S->points[c];
        }
        S->top_trump[byte] = first;
        S->sure_trumps[byte] = who ? pts : -pts;
    }
}

static PyObject *Search_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {
        "n",         "trump",       "no_trump",       "all_trump",       "scale",
        "capot",     "partner_exc", "partner_rule",   "overtake_plain",  "must_undertrump",
        "beats",     "above",       "above_trump",    "above_plain",     "points",
        "strength",  "desc",        "mx",             "side_of",         "side_max",
        "bonus",     "side_card",   "hands",          "reveal",          "owner",
        "trick",     "leader",      "rem",            "left",            "sweep",
        "rp",        "table",       "max_nodes",      "budget",          NULL,
    };
    int n, trump, no_trump, all_trump, scale, capot, partner_exc, partner_rule, overtake_plain,
        must_undertrump, leader, left, sweep, rp;
    long long max_nodes;
    Py_buffer beats;
    PyObject *above, *above_trump, *above_plain, *points, *strength, *desc, *mx, *side_of,
        *side_max, *bonus, *side_card, *hands, *reveal, *owner, *trick, *rem, *tt, *budget;
    if (!PyArg_ParseTupleAndKeywords(
            args, kwds, "iiiiiippppy*OOOOOOOOOOOOOOOiOiiiO!LO:Search", kwlist, &n, &trump,
            &no_trump, &all_trump, &scale, &capot, &partner_exc, &partner_rule, &overtake_plain,
            &must_undertrump, &beats, &above, &above_trump, &above_plain, &points, &strength,
            &desc, &mx, &side_of, &side_max, &bonus, &side_card, &hands, &reveal, &owner, &trick,
            &leader, &rem, &left, &sweep, &rp, &TableType, &tt, &max_nodes, &budget))
        return NULL;
    SearchObject *S = NULL;
    PyObject *fast = NULL;
    if (beats.len != 1024) {
        PyErr_SetString(PyExc_ValueError, "beats: 1024 bytes expected");
        goto error;
    }
    if (n < 2 || n > 4 || trump < 0 || trump > 5 || scale < 1 || scale > MAX_SCALE ||
        capot < 0 || capot > MAX_POINTS || leader < 0 || leader >= n || left < 1 || left > 32 ||
        sweep < 0 || sweep > BROKEN || rp < 0 || rp > MAX_POINTS) {
        PyErr_SetString(PyExc_ValueError, "Search: an argument is out of range");
        goto error;
    }
    if (!PyExceptionClass_Check(budget)) {
        PyErr_SetString(PyExc_TypeError, "budget: an exception class expected");
        goto error;
    }
    S = (SearchObject *)type->tp_alloc(type, 0);
    if (!S)
        goto error;
    S->tt = (TableObject *)tt;
    Py_INCREF(tt);
    S->budget = budget;
    Py_INCREF(budget);
    S->nodes = 0;
    S->limit = max_nodes > 0 ? max_nodes : INF;
    S->n = n;
    S->trump = trump;
    S->no_trump = no_trump;
    S->all_trump = all_trump;
    S->scale = scale;
    S->capot = capot;
    S->partner_exc = partner_exc;
    S->partner_rule = partner_rule;
    S->overtake_plain = overtake_plain;
    S->must_undertrump = must_undertrump;
    memcpy(S->beats, beats.buf, 1024);
    for (int i = 0; i < 1024; i++)
        S->beats[i] = S->beats[i] != 0;
    for (int c = 0; c < 32; c++) {
        S->win_over[c] = 0;
        for (int x = 0; x < 32; x++)
            if (S->beats[c * 32 + x])
                S->win_over[c] |= 1u << x;
    }
    for (int i = 0; i < 8; i++)
        S->seat_at[i] = i % n;
    S->trump_mask = trump < 4 ? suit_mask(trump) : 0;
    S->tshift = S->trump_mask ? 8 * trump : 0;

    if (read_masks(above, "above", S->above, 32) < 0 ||
        read_masks(above_trump, "above_trump", S->above_trump, 32) < 0 ||
        read_masks(above_plain, "above_plain", S->above_plain, 32) < 0 ||
        read_ints(points, "points", S->points, 32, 0, MAX_POINTS) < 0 ||
        read_ints(strength, "strength", S->strength, 32, -MAX_POINTS, MAX_POINTS) < 0 ||
        read_ints(mx, "mx", S->mx, n, 0, 1) < 0 ||
        read_ints(side_of, "side_of", S->side_of, n, 0, n - 1) < 0 ||
        read_ints(side_card, "side_card", S->side_card, 32, 0, n - 1) < 0 ||
        read_ints(bonus, "bonus", S->bonus, 8, -MAX_POINTS, MAX_POINTS) < 0 ||
        read_masks(hands, "hands", S->hands, n) < 0 || read_mask(rem, "rem", &S->rem0) < 0)
        goto error;

    fast = PySequence_Fast(desc, "desc");
    if (!fast)
        goto error;
    if (PySequence_Fast_GET_SIZE(fast) != 4) {
        PyErr_SetString(PyExc_ValueError, "desc: 4 suits expected");
        goto error;
    }
    for (int s = 0; s < 4; s++) {
        if (read_ints(PySequence_Fast_GET_ITEM(fast, s), "desc", S->desc[s], 8, 8 * s,
                      8 * s + 7) < 0)
            goto error;
    }
    Py_CLEAR(fast);

    /* the party of each card's side: the maximising one or not */
    int sides[4] = {0, 0, 0, 0};
    Py_ssize_t nsides = PySequence_Length(side_max);
    if (nsides < 0)
        goto error;
    if (nsides < 1 || nsides > 4) {
        PyErr_SetString(PyExc_ValueError, "side_max: 1 to 4 sides expected");
        goto error;
    }
    if (read_ints(side_max, "side_max", sides, nsides, 0, 1) < 0)
        goto error;
    int party_card[32];
    for (int c = 0; c < 32; c++) {
        if (S->side_card[c] >= nsides) {
            PyErr_SetString(PyExc_ValueError, "side_card: no such side");
            goto error;
        }
        party_card[c] = sides[S->side_card[c]];
    }
    for (int s = 0; s < n; s++) {
        if (S->side_of[s] >= nsides) {
            PyErr_SetString(PyExc_ValueError, "side_of: no such side");
            goto error;
        }
    }

    /* the duel's face-down cards: each played card that frees one, and the freed card's seat */
    for (int c = 0; c < 32; c++)
        S->reveal_of[c] = S->owner_of[c] = -1;
    if (read_card_map(reveal, "reveal", S->reveal_of, 31) < 0 ||
        read_card_map(owner, "owner", S->owner_of, n - 1) < 0)
        goto error;
    S->covers = 0;
    for (int c = 0; c < 32; c++) {
        int f = S->reveal_of[c];
        if (f < 0)
            continue;
        if (S->owner_of[f] < 0) {
            PyErr_SetString(PyExc_ValueError, "reveal: a freed card has no owner");
            goto error;
        }
        S->covers |= 1u << c;
    }

    /* the root: the trick on the table, its winning card so far and its points */
    fast = PySequence_Fast(trick, "trick");
    if (!fast)
        goto error;
    Py_ssize_t k = PySequence_Fast_GET_SIZE(fast);
    if (k >= n) {
        PyErr_SetString(PyExc_ValueError, "trick: a complete trick");
        goto error;
    }
    int cards[4];
    if (read_ints(fast, "trick", cards, k, 0, 31) < 0)
        goto error;
    Py_CLEAR(fast);
    S->leader = leader;
    S->k = (int)k;
    S->seat = (leader + (int)k) % n;
    S->left = left;
    S->sweep0 = sweep;
    S->rp0 = rp;
    S->on_table = 0;
    S->bi = S->bc = S->tp = S->led = 0;
    if (k) {
        S->bc = cards[0];
        S->tp = S->points[cards[0]];
        S->led = cards[0] >> 3;
        for (int i = 0; i < k; i++)
            S->on_table |= 1u << cards[i];
        for (int i = 1; i < k; i++) {
            if (S->beats[S->bc * 32 + cards[i]]) {
                S->bi = i;
                S->bc = cards[i];
            }
            S->tp += S->points[cards[i]];
        }
    }
    derive(S, party_card);

    /* every bound the table keeps lies within the points still out and a bonus */
    long long widest = (long long)(rp + S->tp) * scale + capot;
    int most = 0;
    for (int i = 0; i < 8; i++) {
        int b = S->bonus[i] < 0 ? -S->bonus[i] : S->bonus[i];
        if (b > most)
            most = b;
    }
    /* an empty table for a long search starts large: growing it step by step costs more */
    if (!S->tt->count && left >= LARGE_LEFT && S->tt->bits < LARGE_BITS &&
        table_rehash(S->tt, LARGE_BITS, S->tt->wide) < 0) {
        PyErr_NoMemory();
        goto error;
    }
    if (widest + most > NARROW_MAX && !S->tt->wide &&
        table_rehash(S->tt, S->tt->bits, 1) < 0) {
        PyErr_NoMemory();
        goto error;
    }
    PyBuffer_Release(&beats);
    return (PyObject *)S;

error:
    Py_XDECREF(fast);
    Py_XDECREF(S);
    PyBuffer_Release(&beats);
    return NULL;
}

static void Search_dealloc(SearchObject *self)
{
    Py_XDECREF(self->tt);
    Py_XDECREF(self->budget);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* after(card, alpha, beta): the value still to come once the seat to move plays ``card``. */
static PyObject *Search_after(SearchObject *S, PyObject *args)
{
    int c, alpha, beta;
    if (!PyArg_ParseTuple(args, "iii:after", &c, &alpha, &beta))
        return NULL;
    if (c < 0 || c > 31) {
        PyErr_SetString(PyExc_ValueError, "after: not a card");
        return NULL;
    }
    if (alpha < -INF || alpha > INF || beta < -INF || beta > INF) {
        PyErr_SetString(PyExc_ValueError, "after: a bound out of range");
        return NULL;
    }
    uint32_t saved[4];
    memcpy(saved, S->hands, sizeof saved);
    if (setjmp(S->fail)) {
        memcpy(S->hands, saved, sizeof saved);
        return NULL;
    }
    int n = S->n, k = S->k, seat = S->seat;
    uint32_t b = 1u << c;
    uint32_t rem = S->rem0 & ~b;
    S->hands[seat] &= ~b;
    int v;
    if (k == 0) {
        v = follow(S, 1, S->leader, c >> 3, 0, c, S->points[c], b, rem, S->left, S->sweep0,
                   S->rp0, alpha, beta);
    } else {
        int nbi = S->bi, nbc = S->bc;
        if (S->beats[S->bc * 32 + c]) {
            nbi = k;
            nbc = c;
        }
        int ntp = S->tp + S->points[c];
        uint32_t table = S->on_table | b;
        if (k == n - 1)
            v = finish(S, S->leader, nbi, ntp, table, rem, S->left, S->sweep0, S->rp0, alpha,
                       beta);
        else
            v = follow(S, k + 1, S->leader, S->led, nbi, nbc, ntp, table, rem, S->left,
                       S->sweep0, S->rp0, alpha, beta);
    }
    memcpy(S->hands, saved, sizeof saved);
    return PyLong_FromLong(v);
}

static PyMethodDef Search_methods[] = {
    {"after", (PyCFunction)Search_after, METH_VARARGS,
     "after(card, alpha, beta) -> int: the value still to come once the seat to move plays "
     "card, searched with the window (alpha, beta)."},
    {NULL, NULL, 0, NULL},
};

static PyMemberDef Search_members[] = {
    {"nodes", T_LONGLONG, offsetof(SearchObject, nodes), READONLY,
     "the positions searched so far"},
    {NULL, 0, 0, 0, NULL},
};

static PyTypeObject SearchType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "app.bots._dds.Search",
    .tp_doc = "Search(**position): the exact search of one position (see app/bots/dds.py).",
    .tp_basicsize = sizeof(SearchObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = Search_new,
    .tp_dealloc = (destructor)Search_dealloc,
    .tp_methods = Search_methods,
    .tp_members = Search_members,
};

static struct PyModuleDef dds_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "app.bots._dds",
    .m_doc = "The search of the exact double-dummy solver in C (see app/bots/dds.py).",
    .m_size = -1,
};

PyMODINIT_FUNC PyInit__dds(void)
{
    if (PyType_Ready(&TableType) < 0 || PyType_Ready(&SearchType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&dds_module);
    if (!m)
        return NULL;
    Py_INCREF(&TableType);
    if (PyModule_AddObject(m, "Table", (PyObject *)&TableType) < 0) {
        Py_DECREF(&TableType);
        Py_DECREF(m);
        return NULL;
    }
    Py_INCREF(&SearchType);
    if (PyModule_AddObject(m, "Search", (PyObject *)&SearchType) < 0) {
        Py_DECREF(&SearchType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
