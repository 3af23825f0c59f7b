// Generated from docs/schema/server-to-client.json by app/web/typedefs.py: do not edit;
// run `python -m app.web.typedefs --write`. JSDoc types only (for `// @ts-check`): nothing to run.

/**
 * Any message the server sends (docs/protocol.md).
 * @typedef {AckOut | ChatOut | ErrorOut | HintOut | LobbyCountsOut | LobbyOut | LobbyRemoveOut | LobbyTableOut | PongOut | RematchOut | RoomOut | StateOut | UpdateOut} ServerMessage
 */

/**
 * @typedef {Object} AckOut
 * @property {"ack"} type
 * @property {string} id
 * @property {number} version
 */

/**
 * A bela seat's view: the bela fields plus its hand and legal actions.
 * @typedef {Object} BelaSeatView
 * @property {number} seat - the seat this view is for
 * @property {Array<string>} hand - the cards this seat holds
 * @property {Array<BidAction | DeclareAction | DiscardAction | DoubleAction | ExchangeAction | PassAction | PlayAction | RedoubleAction>} legal - what this seat may do now (empty when it is not to act): send one as is
 * @property {boolean} can_claim - this seat may claim every remaining trick now (RULES.md §15): send claim
 * @property {Array<string> | null} discard - bela for three: the taker's own discards
 * @property {Array<number>} talon_counts - per seat: cards left in its talon
 * @property {number} middle_count - bela for three: cards in the middle
 * @property {number} discarded - bela for three: cards the taker put away
 * @property {number | null} exchanged - bela for two: the seat that took the seven
 * @property {"bela"} variant
 * @property {number} players
 * @property {TraitsModel} traits - what the variant is like, the same all game long: ask these, not variant
 * @property {Object<string, boolean | number | string>} options - the match's options (RULES.md §11), defaults filled
 * @property {Array<number>} sides - per seat: its side (team, or the seat itself)
 * @property {number | null} target - the score that ends the match (duel: null)
 * @property {"bidding" | "exchange" | "discard" | "play" | "deal_over" | "match_over"} phase
 * @property {number} deal_number - the deal in progress or just scored, from 0
 * @property {number} dealer
 * @property {number | null} to_act - the seat to act, null when nobody is
 * @property {Array<number>} hand_counts - per seat: how many cards it holds
 * @property {Array<BidEntry>} bids - the auction of this deal so far, in order
 * @property {ContractModel | null} contract
 * @property {string | null} upcard - the face-up card of the auction, if any
 * @property {SeatCard | null} taken - the face-up card a seat took into its hand
 * @property {Array<SeatCard>} trick - the trick being played, in order
 * @property {number} leader - the seat that leads (or led) the current trick
 * @property {TrickModel | null} last_trick - the last completed trick
 * @property {Array<TrickModel>} tricks - every completed trick of the deal
 * @property {number} tricks_played
 * @property {Array<number>} tricks_won - per seat: tricks won this deal
 * @property {Array<number>} trick_points - per side: card points won in tricks
 * @property {Array<Array<PublicCarre | PublicSequence>>} declarations - per seat: the combinations it declared (kind and strength only)
 * @property {Array<ShownDeclaration>} shown_declarations
 * @property {Array<BeloteEntry>} belote
 * @property {Array<number>} scores - per side: the match score
 * @property {number} reserve - points hanging, carried to the next deal
 * @property {number | null} reserve_discarded - once the match is over: the reserve still waiting, discarded (D-8)
 * @property {Array<DealResultModel>} results - the score sheet: one line per deal
 * @property {number | null} winner - the side that won the match, once it is over
 * @property {ClaimModel | null} claim - a claim of the remaining tricks being played out (RULES.md §15), or null
 */

/**
 * @typedef {Object} BelaSpectatorView
 * @property {Array<number>} talon_counts - per seat: cards left in its talon
 * @property {number} middle_count - bela for three: cards in the middle
 * @property {number} discarded - bela for three: cards the taker put away
 * @property {number | null} exchanged - bela for two: the seat that took the seven
 * @property {"bela"} variant
 * @property {number} players
 * @property {TraitsModel} traits - what the variant is like, the same all game long: ask these, not variant
 * @property {Object<string, boolean | number | string>} options - the match's options (RULES.md §11), defaults filled
 * @property {Array<number>} sides - per seat: its side (team, or the seat itself)
 * @property {number | null} target - the score that ends the match (duel: null)
 * @property {"bidding" | "exchange" | "discard" | "play" | "deal_over" | "match_over"} phase
 * @property {number} deal_number - the deal in progress or just scored, from 0
 * @property {number} dealer
 * @property {number | null} to_act - the seat to act, null when nobody is
 * @property {Array<number>} hand_counts - per seat: how many cards it holds
 * @property {Array<BidEntry>} bids - the auction of this deal so far, in order
 * @property {ContractModel | null} contract
 * @property {string | null} upcard - the face-up card of the auction, if any
 * @property {SeatCard | null} taken - the face-up card a seat took into its hand
 * @property {Array<SeatCard>} trick - the trick being played, in order
 * @property {number} leader - the seat that leads (or led) the current trick
 * @property {TrickModel | null} last_trick - the last completed trick
 * @property {Array<TrickModel>} tricks - every completed trick of the deal
 * @property {number} tricks_played
 * @property {Array<number>} tricks_won - per seat: tricks won this deal
 * @property {Array<number>} trick_points - per side: card points won in tricks
 * @property {Array<Array<PublicCarre | PublicSequence>>} declarations - per seat: the combinations it declared (kind and strength only)
 * @property {Array<ShownDeclaration>} shown_declarations
 * @property {Array<BeloteEntry>} belote
 * @property {Array<number>} scores - per side: the match score
 * @property {number} reserve - points hanging, carried to the next deal
 * @property {number | null} reserve_discarded - once the match is over: the reserve still waiting, discarded (D-8)
 * @property {Array<DealResultModel>} results - the score sheet: one line per deal
 * @property {number | null} winner - the side that won the match, once it is over
 * @property {ClaimModel | null} claim - a claim of the remaining tricks being played out (RULES.md §15), or null
 */

/**
 * A belote announced: ``belote`` names its suit (the first card of the pair played), ``rebelote`` completes it.
 * @typedef {Object} BeloteEntry
 * @property {number} seat
 * @property {"belote" | "rebelote"} stage
 * @property {"C" | "D" | "H" | "S" | null} [suit]
 */

/**
 * @typedef {Object} BeloteEvent
 * @property {"belote"} type
 * @property {number} seat
 * @property {"belote" | "rebelote"} stage
 * @property {"C" | "D" | "H" | "S"} suit
 */

/**
 * ``value`` is coinche's (80, 90, ..., 160 or ``capot``); other variants name a contract only.
 * @typedef {Object} BidAction
 * @property {"bid"} type
 * @property {"C" | "D" | "H" | "S" | "NT" | "AT"} contract
 * @property {number | "capot" | null} [value]
 */

/**
 * One bid of the auction: the seat and its action (RULES.md §12).
 * @typedef {Object} BidEntry
 * @property {number} seat
 * @property {"pass" | "bid" | "double" | "redouble"} type
 * @property {"C" | "D" | "H" | "S" | "NT" | "AT" | null} [contract]
 * @property {number | "capot" | null} [value]
 */

/**
 * @typedef {Object} BidEvent
 * @property {"bid"} type
 * @property {number} seat
 * @property {"pass" | "bid" | "double" | "redouble"} bid
 * @property {"C" | "D" | "H" | "S" | "NT" | "AT" | null} [contract]
 * @property {number | "capot" | null} [value]
 * @property {"stand_in" | "auto" | "claim" | null} [by]
 */

/**
 * Which tournament board a game is: its event, round, board (from 1), table (0: the datum table of house players) and the direction of the entrant's seat 0.
 * @typedef {Object} BoardModel
 * @property {string} event
 * @property {number} round
 * @property {number} board
 * @property {number} table
 * @property {"NS" | "S"} direction
 */

/**
 * A seat whose last call of this auction was made for it, as its ``bid`` event said.
 * @typedef {Object} CallByModel
 * @property {"bid"} type
 * @property {number} seat
 * @property {"stand_in" | "auto" | "claim"} by
 */

/**
 * A card of this deal played for its seat, as its ``card_played`` event said.
 * @typedef {Object} CardPlayedByModel
 * @property {"card_played"} type
 * @property {number} seat
 * @property {string} card - rank (7 8 9 T J Q K A) then suit (C D H S), e.g. TH
 * @property {"stand_in" | "auto" | "claim"} by
 */

/**
 * @typedef {Object} CardPlayedEvent
 * @property {"card_played"} type
 * @property {number} seat
 * @property {string} card - rank (7 8 9 T J Q K A) then suit (C D H S), e.g. TH
 * @property {"stand_in" | "auto" | "claim" | null} [by]
 */

/**
 * @typedef {Object} ChatLineModel
 * @property {number} id
 * @property {number | null} seat
 * @property {string | null} name
 * @property {"text" | "phrase" | "emote"} kind
 * @property {string} text
 * @property {number} at
 */

/**
 * @typedef {Object} ChatOut
 * @property {"chat"} type
 * @property {ChatLineModel} message
 */

/**
 * A claim of every remaining trick being played out (RULES.md §15): the claimer and the cards he has left, shown to everyone.
 * @typedef {Object} ClaimModel
 * @property {number} seat
 * @property {Array<string>} cards
 */

/**
 * A valid claim (RULES.md §15): the claimer's remaining cards, shown to everyone; the server plays the deal out (``card_played`` with ``by``: ``claim``).
 * @typedef {Object} ClaimedEvent
 * @property {"claimed"} type
 * @property {number} seat
 * @property {Array<string>} cards
 */

/**
 * @typedef {Object} ConsentModel
 * @property {"next_deal" | "rematch" | null} kind
 * @property {Array<number>} agreed
 * @property {Array<number>} needed
 */

/**
 * @typedef {Object} ContractEvent
 * @property {"contract"} type
 * @property {ContractModel} contract
 */

/**
 * The contract: its denomination (a suit, ``NT`` no trumps, ``AT`` all trumps), the seat that took it, 1/2/4 for undoubled/doubled/redoubled, and coinche's value.
 * @typedef {Object} ContractModel
 * @property {"C" | "D" | "H" | "S" | "NT" | "AT"} denom
 * @property {number} taker
 * @property {1 | 2 | 4} multiplier
 * @property {number | "capot" | null} [value]
 */

/**
 * One deal's line of the score sheet (the engine's ``result_json``). A deal thrown in has only ``number``, ``dealer``, ``thrown_in`` and ``totals_after`` (and ``winner_side`` with ``eight_card_belot`` when an eight-card belot ended the match); a played deal has the rest. Lists are per side unless named per seat.
 * @typedef {Object} DealResultModel
 * @property {number} number
 * @property {number} dealer
 * @property {boolean} thrown_in
 * @property {Array<number>} totals_after
 * @property {boolean | null} [eight_card_belot]
 * @property {ContractModel | null} [contract]
 * @property {number | null} [taker_side]
 * @property {"made" | "failed" | "litige" | "hanging" | null} [outcome]
 * @property {Array<number> | null} [card_points]
 * @property {Array<number> | null} [tricks_won]
 * @property {number | null} [last_trick_side]
 * @property {number | null} [capot_side]
 * @property {Array<Array<ScoredCarre | ScoredSequence>> | null} [declarations] - per seat: the combinations counted, with their cards
 * @property {Array<number> | null} [declaration_points]
 * @property {Array<number> | null} [belote_points]
 * @property {Array<number> | null} [belote_seats]
 * @property {Array<number> | null} [totals]
 * @property {Array<number> | null} [recorded]
 * @property {number | null} [reserve_paid]
 * @property {number | null} [reserve_paid_to]
 * @property {number | null} [reserve]
 * @property {Object<string, any> | null} [rounding] - how the totals were rounded, when they were (kind, figures)
 * @property {number | null} [winner_side]
 */

/**
 * @typedef {Object} DealScoredEvent
 * @property {"deal_scored"} type
 * @property {DealResultModel} result
 */

/**
 * @typedef {Object} DealStartedEvent
 * @property {"deal_started"} type
 * @property {number} number
 * @property {number} dealer
 */

/**
 * Everybody passed: no score, the next dealer deals.
 * @typedef {Object} DealThrownInEvent
 * @property {"deal_thrown_in"} type
 * @property {number} dealer
 */

/**
 * After trick 1: the side whose declarations count (null: none) and their cards.
 * @typedef {Object} DeclarationsShownEvent
 * @property {"declarations_shown"} type
 * @property {number | null} side
 * @property {Array<ShownDeclaration>} shown
 */

/**
 * The combinations declared, each as its cards (an empty list declares nothing).
 * @typedef {Object} DeclareAction
 * @property {"declare"} type
 * @property {Array<Array<string>>} combos
 */

/**
 * A seat declared combinations (kind and strength only).
 * @typedef {Object} DeclaredEvent
 * @property {"declared"} type
 * @property {number} seat
 * @property {Array<PublicCarre | PublicSequence>} combos
 * @property {"stand_in" | "auto" | "claim" | null} [by]
 */

/**
 * Bela for three: the taker puts two cards away.
 * @typedef {Object} DiscardAction
 * @property {"discard"} type
 * @property {Array<string>} cards
 */

/**
 * To the discarding seat only: the two cards it put away.
 * @typedef {Object} DiscardEvent
 * @property {"discard"} type
 * @property {Array<string>} cards
 */

/**
 * @typedef {Object} DiscardedEvent
 * @property {"discarded"} type
 * @property {number} seat
 * @property {number} count
 * @property {"stand_in" | "auto" | "claim" | null} [by]
 */

/**
 * @typedef {Object} DoubleAction
 * @property {"double"} type
 */

/**
 * A duel seat's view: the piles plus its hand and legal actions.
 * @typedef {Object} DuelSeatView
 * @property {number} seat - the seat this view is for
 * @property {Array<string>} hand - the cards this seat holds
 * @property {Array<BidAction | DeclareAction | DiscardAction | DoubleAction | ExchangeAction | PassAction | PlayAction | RedoubleAction>} legal - what this seat may do now (empty when it is not to act): send one as is
 * @property {boolean} can_claim - this seat may claim every remaining trick now (RULES.md §15): send claim
 * @property {Array<string> | null} discard - bela for three: the taker's own discards
 * @property {Array<Array<PileModel>>} piles - per seat: its eight table piles
 * @property {"duel"} variant
 * @property {number} players
 * @property {TraitsModel} traits - what the variant is like, the same all game long: ask these, not variant
 * @property {Object<string, boolean | number | string>} options - the match's options (RULES.md §11), defaults filled
 * @property {Array<number>} sides - per seat: its side (team, or the seat itself)
 * @property {number | null} target - the score that ends the match (duel: null)
 * @property {"bidding" | "exchange" | "discard" | "play" | "deal_over" | "match_over"} phase
 * @property {number} deal_number - the deal in progress or just scored, from 0
 * @property {number} dealer
 * @property {number | null} to_act - the seat to act, null when nobody is
 * @property {Array<number>} hand_counts - per seat: how many cards it holds
 * @property {Array<BidEntry>} bids - the auction of this deal so far, in order
 * @property {ContractModel | null} contract
 * @property {string | null} upcard - the face-up card of the auction, if any
 * @property {SeatCard | null} taken - the face-up card a seat took into its hand
 * @property {Array<SeatCard>} trick - the trick being played, in order
 * @property {number} leader - the seat that leads (or led) the current trick
 * @property {TrickModel | null} last_trick - the last completed trick
 * @property {Array<TrickModel>} tricks - every completed trick of the deal
 * @property {number} tricks_played
 * @property {Array<number>} tricks_won - per seat: tricks won this deal
 * @property {Array<number>} trick_points - per side: card points won in tricks
 * @property {Array<Array<PublicCarre | PublicSequence>>} declarations - per seat: the combinations it declared (kind and strength only)
 * @property {Array<ShownDeclaration>} shown_declarations
 * @property {Array<BeloteEntry>} belote
 * @property {Array<number>} scores - per side: the match score
 * @property {number} reserve - points hanging, carried to the next deal
 * @property {number | null} reserve_discarded - once the match is over: the reserve still waiting, discarded (D-8)
 * @property {Array<DealResultModel>} results - the score sheet: one line per deal
 * @property {number | null} winner - the side that won the match, once it is over
 * @property {ClaimModel | null} claim - a claim of the remaining tricks being played out (RULES.md §15), or null
 */

/**
 * @typedef {Object} DuelSpectatorView
 * @property {Array<Array<PileModel>>} piles - per seat: its eight table piles
 * @property {"duel"} variant
 * @property {number} players
 * @property {TraitsModel} traits - what the variant is like, the same all game long: ask these, not variant
 * @property {Object<string, boolean | number | string>} options - the match's options (RULES.md §11), defaults filled
 * @property {Array<number>} sides - per seat: its side (team, or the seat itself)
 * @property {number | null} target - the score that ends the match (duel: null)
 * @property {"bidding" | "exchange" | "discard" | "play" | "deal_over" | "match_over"} phase
 * @property {number} deal_number - the deal in progress or just scored, from 0
 * @property {number} dealer
 * @property {number | null} to_act - the seat to act, null when nobody is
 * @property {Array<number>} hand_counts - per seat: how many cards it holds
 * @property {Array<BidEntry>} bids - the auction of this deal so far, in order
 * @property {ContractModel | null} contract
 * @property {string | null} upcard - the face-up card of the auction, if any
 * @property {SeatCard | null} taken - the face-up card a seat took into its hand
 * @property {Array<SeatCard>} trick - the trick being played, in order
 * @property {number} leader - the seat that leads (or led) the current trick
 * @property {TrickModel | null} last_trick - the last completed trick
 * @property {Array<TrickModel>} tricks - every completed trick of the deal
 * @property {number} tricks_played
 * @property {Array<number>} tricks_won - per seat: tricks won this deal
 * @property {Array<number>} trick_points - per side: card points won in tricks
 * @property {Array<Array<PublicCarre | PublicSequence>>} declarations - per seat: the combinations it declared (kind and strength only)
 * @property {Array<ShownDeclaration>} shown_declarations
 * @property {Array<BeloteEntry>} belote
 * @property {Array<number>} scores - per side: the match score
 * @property {number} reserve - points hanging, carried to the next deal
 * @property {number | null} reserve_discarded - once the match is over: the reserve still waiting, discarded (D-8)
 * @property {Array<DealResultModel>} results - the score sheet: one line per deal
 * @property {number | null} winner - the side that won the match, once it is over
 * @property {ClaimModel | null} claim - a claim of the remaining tricks being played out (RULES.md §15), or null
 */

/**
 * A refusal; nothing changed. ``id`` is the refused frame's, when it had one.
 * @typedef {Object} ErrorOut
 * @property {"error"} type
 * @property {"bad_json" | "bad_message" | "unknown_type" | "invalid_action" | "illegal_action" | "claim_not_certain" | "not_your_lead" | "claimed" | "not_your_seat" | "not_your_turn" | "stale_version" | "paused" | "spectator" | "game_over" | "not_host" | "not_allowed" | "frame_too_large" | "rate_limited" | "no_identity" | "not_found" | "table_full" | "busy" | "server_error" | "not_away" | "chat_off" | "seat_taken" | "banned" | "removed" | "room_closed" | "muted"} code
 * @property {string} message
 * @property {string | null} id
 * @property {ReasonModel | null} [reason]
 */

/**
 * Bela for two: give the trump seven for the proposed card.
 * @typedef {Object} ExchangeAction
 * @property {"exchange"} type
 * @property {string} card - rank (7 8 9 T J Q K A) then suit (C D H S), e.g. TH
 */

/**
 * Bela for two: ``seat`` gave the seven ``card`` and took ``took``.
 * @typedef {Object} ExchangedEvent
 * @property {"exchanged"} type
 * @property {number} seat
 * @property {string} card - rank (7 8 9 T J Q K A) then suit (C D H S), e.g. TH
 * @property {string} took - rank (7 8 9 T J Q K A) then suit (C D H S), e.g. TH
 * @property {"stand_in" | "auto" | "claim" | null} [by]
 */

/**
 * To its seat only: the cards it holds now.
 * @typedef {Object} HandEvent
 * @property {"hand"} type
 * @property {Array<string>} cards
 */

/**
 * @typedef {Object} HintOut
 * @property {"hint"} type
 * @property {string} id
 * @property {BidAction | DeclareAction | DiscardAction | DoubleAction | ExchangeAction | PassAction | PlayAction | RedoubleAction} action
 */

/**
 * @typedef {Object} LobbyCountsOut
 * @property {"lobby_counts"} type
 * @property {number} online
 * @property {number} playing
 */

/**
 * The lobby's whole list, once, when its socket opens.
 * @typedef {Object} LobbyOut
 * @property {"lobby"} type
 * @property {Array<LobbyTableModel>} tables
 * @property {number} online - browsers connected
 * @property {number} playing - tables being played
 */

/**
 * A table left the list (full, finished, made private).
 * @typedef {Object} LobbyRemoveOut
 * @property {"lobby_remove"} type
 * @property {string} game_id
 */

/**
 * @typedef {Object} LobbySeatModel
 * @property {number} seat
 * @property {"human" | "computer" | "free"} kind
 * @property {string | null} name - a human's display name (text, never HTML)
 * @property {number | null} xp_level
 * @property {"easy" | "medium" | "hard" | null} level - a computer player's level
 * @property {boolean} free - a seat this browser may ask for: free while the table waits, or a computer's that it gives to a human at the end of the deal in progress
 */

/**
 * A public table with a free seat (app/rooms/lobby.py ``entry_of``). Never a card.
 * @typedef {Object} LobbyTableModel
 * @property {string} game_id
 * @property {string} url
 * @property {"classic" | "coinche" | "bulgarian" | "bela" | "duel"} variant
 * @property {number} players
 * @property {number | string | null} target
 * @property {number} clock - seconds per decision
 * @property {boolean} rated
 * @property {boolean} spectators - spectators may watch
 * @property {"waiting" | "playing"} status
 * @property {"easy" | "medium" | "hard"} level - the level of the computer players that fill free seats
 * @property {Array<LobbySeatModel>} seats
 * @property {number} free
 * @property {string | null} created_at
 */

/**
 * A table joined the list or changed.
 * @typedef {Object} LobbyTableOut
 * @property {"lobby_table"} type
 * @property {LobbyTableModel} table
 */

/**
 * The match is over: ``winner`` is the winning side; ``scores``, or ``reason`` (``eight_card_belot``).
 * @typedef {Object} MatchOverEvent
 * @property {"match_over"} type
 * @property {number | null} winner
 * @property {Array<number> | null} [scores]
 * @property {"eight_card_belot" | null} [reason]
 * @property {number | null} [reserve_discarded]
 */

/**
 * @typedef {Object} NextDealModel
 * @property {Array<number>} waiting_for
 * @property {number | null} deadline
 */

/**
 * @typedef {Object} PassAction
 * @property {"pass"} type
 */

/**
 * Duel: one of a seat's eight table piles: its face-up card (null once played) and whether a face-down card lies under it.
 * @typedef {Object} PileModel
 * @property {string | null} up
 * @property {boolean} down
 */

/**
 * ``belote: true`` announces belote (or rebelote) with this card (RULES.md §12).
 * @typedef {Object} PlayAction
 * @property {"play"} type
 * @property {string} card - rank (7 8 9 T J Q K A) then suit (C D H S), e.g. TH
 * @property {boolean | null} [belote]
 */

/**
 * @typedef {Object} PongOut
 * @property {"pong"} type
 */

/**
 * Bela for two, duel: the proposed trump card.
 * @typedef {Object} ProposalEvent
 * @property {"proposal"} type
 * @property {string} card - rank (7 8 9 T J Q K A) then suit (C D H S), e.g. TH
 */

/**
 * A declared carre (four of a rank) as everyone learns it.
 * @typedef {Object} PublicCarre
 * @property {"carre"} kind
 * @property {"7" | "8" | "9" | "T" | "J" | "Q" | "K" | "A"} rank
 * @property {number} points
 */

/**
 * A declared sequence as everyone learns it: its length, top rank and points.
 * @typedef {Object} PublicSequence
 * @property {"sequence"} kind
 * @property {number} length
 * @property {"7" | "8" | "9" | "T" | "J" | "Q" | "K" | "A"} top
 * @property {number} points
 */

/**
 * An ``illegal_action``'s rule as data: its ``code`` (docs/engine.md, "Why a card is refused") and the code's own fields.
 * @typedef {Object} ReasonModel
 * @property {string} code
 */

/**
 * @typedef {Object} RedoubleAction
 * @property {"redouble"} type
 */

/**
 * @typedef {Object} RematchInfoModel
 * @property {string} game_id
 * @property {string} url
 */

/**
 * @typedef {Object} RematchOut
 * @property {"rematch"} type
 * @property {string} game_id
 * @property {string} url
 */

/**
 * Duel: the face-down card of a pile turned up.
 * @typedef {Object} RevealedEvent
 * @property {"revealed"} type
 * @property {number} seat
 * @property {number} pile
 * @property {string} card - rank (7 8 9 T J Q K A) then suit (C D H S), e.g. TH
 */

/**
 * @typedef {Object} RoomModel
 * @property {string} game_id
 * @property {"friends" | "computer" | "local"} mode
 * @property {"classic" | "coinche" | "bulgarian" | "bela" | "duel"} variant
 * @property {number} players
 * @property {Object<string, boolean | number | string>} options
 * @property {"waiting" | "playing" | "finished"} status
 * @property {string} url
 * @property {boolean} host
 * @property {Array<SeatModel>} seats
 * @property {boolean} paused
 * @property {ConsentModel} consent
 * @property {NextDealModel | null} next_deal
 * @property {"easy" | "medium" | "hard" | null} level
 * @property {number} spectators
 * @property {boolean} spectators_allowed
 * @property {RematchInfoModel | null} rematch
 * @property {number} version
 * @property {TableSettingsModel} settings
 * @property {number | null} clock_seconds - the length of a decision's clock in seconds, or null without a clock
 * @property {number} now - the server's clock when the message was sent (epoch ms): a client measures the deadlines against it, so its own clock need not be right
 * @property {boolean} [public] - listed in the lobby
 * @property {boolean} [rated] - the match is rated
 */

/**
 * @typedef {Object} RoomOut
 * @property {"room"} type
 * @property {RoomModel} room
 */

/**
 * @typedef {Object} ScoredCarre
 * @property {"carre"} kind
 * @property {"7" | "8" | "9" | "T" | "J" | "Q" | "K" | "A"} rank
 * @property {number} points
 * @property {Array<string>} cards
 */

/**
 * A sequence counted in a deal's result, with its suit and cards.
 * @typedef {Object} ScoredSequence
 * @property {"sequence"} kind
 * @property {number} length
 * @property {"7" | "8" | "9" | "T" | "J" | "Q" | "K" | "A"} top
 * @property {"C" | "D" | "H" | "S"} suit
 * @property {number} points
 * @property {Array<string>} cards
 */

/**
 * @typedef {Object} SeatCard
 * @property {number} seat
 * @property {string} card - rank (7 8 9 T J Q K A) then suit (C D H S), e.g. TH
 */

/**
 * @typedef {Object} SeatModel
 * @property {number} seat
 * @property {"human" | "bot"} kind
 * @property {string | null} name
 * @property {"easy" | "medium" | "hard" | null} level
 * @property {boolean} taken
 * @property {boolean} connected
 * @property {boolean} you
 * @property {number | null} xp_level
 * @property {number | null} deadline - when this seat's decision clock runs out (epoch ms), or null
 * @property {"away" | "left" | null} stand_in - the stand-in holds the seat: its player is away (the others agreed) or left
 * @property {number | null} away_since - since when no connection holds this human seat (epoch ms), or null
 * @property {Array<number>} stand_in_votes - the seats that agreed to let the stand-in play for this seat
 * @property {boolean} [open] - a public table's computer player that gives the seat to a human at the end of a deal
 * @property {string | null} [heir] - the name of the human who takes this computer seat at the end of the deal
 */

/**
 * A seat's view: the common one plus its hand and its legal actions.
 * @typedef {Object} SeatView
 * @property {number} seat - the seat this view is for
 * @property {Array<string>} hand - the cards this seat holds
 * @property {Array<BidAction | DeclareAction | DiscardAction | DoubleAction | ExchangeAction | PassAction | PlayAction | RedoubleAction>} legal - what this seat may do now (empty when it is not to act): send one as is
 * @property {boolean} can_claim - this seat may claim every remaining trick now (RULES.md §15): send claim
 * @property {Array<string> | null} discard - bela for three: the taker's own discards
 * @property {"classic" | "coinche" | "bulgarian"} variant
 * @property {number} players
 * @property {TraitsModel} traits - what the variant is like, the same all game long: ask these, not variant
 * @property {Object<string, boolean | number | string>} options - the match's options (RULES.md §11), defaults filled
 * @property {Array<number>} sides - per seat: its side (team, or the seat itself)
 * @property {number | null} target - the score that ends the match (duel: null)
 * @property {"bidding" | "exchange" | "discard" | "play" | "deal_over" | "match_over"} phase
 * @property {number} deal_number - the deal in progress or just scored, from 0
 * @property {number} dealer
 * @property {number | null} to_act - the seat to act, null when nobody is
 * @property {Array<number>} hand_counts - per seat: how many cards it holds
 * @property {Array<BidEntry>} bids - the auction of this deal so far, in order
 * @property {ContractModel | null} contract
 * @property {string | null} upcard - the face-up card of the auction, if any
 * @property {SeatCard | null} taken - the face-up card a seat took into its hand
 * @property {Array<SeatCard>} trick - the trick being played, in order
 * @property {number} leader - the seat that leads (or led) the current trick
 * @property {TrickModel | null} last_trick - the last completed trick
 * @property {Array<TrickModel>} tricks - every completed trick of the deal
 * @property {number} tricks_played
 * @property {Array<number>} tricks_won - per seat: tricks won this deal
 * @property {Array<number>} trick_points - per side: card points won in tricks
 * @property {Array<Array<PublicCarre | PublicSequence>>} declarations - per seat: the combinations it declared (kind and strength only)
 * @property {Array<ShownDeclaration>} shown_declarations
 * @property {Array<BeloteEntry>} belote
 * @property {Array<number>} scores - per side: the match score
 * @property {number} reserve - points hanging, carried to the next deal
 * @property {number | null} reserve_discarded - once the match is over: the reserve still waiting, discarded (D-8)
 * @property {Array<DealResultModel>} results - the score sheet: one line per deal
 * @property {number | null} winner - the side that won the match, once it is over
 * @property {ClaimModel | null} claim - a claim of the remaining tricks being played out (RULES.md §15), or null
 */

/**
 * A seat's declared cards shown to everyone once trick 1 is over (RULES.md §1.2).
 * @typedef {Object} ShownDeclaration
 * @property {number} seat
 * @property {Array<Array<string>>} combos
 */

/**
 * What everyone at the table sees (RULES.md §13), in classic, coinche and bulgarian.
 * @typedef {Object} SpectatorView
 * @property {"classic" | "coinche" | "bulgarian"} variant
 * @property {number} players
 * @property {TraitsModel} traits - what the variant is like, the same all game long: ask these, not variant
 * @property {Object<string, boolean | number | string>} options - the match's options (RULES.md §11), defaults filled
 * @property {Array<number>} sides - per seat: its side (team, or the seat itself)
 * @property {number | null} target - the score that ends the match (duel: null)
 * @property {"bidding" | "exchange" | "discard" | "play" | "deal_over" | "match_over"} phase
 * @property {number} deal_number - the deal in progress or just scored, from 0
 * @property {number} dealer
 * @property {number | null} to_act - the seat to act, null when nobody is
 * @property {Array<number>} hand_counts - per seat: how many cards it holds
 * @property {Array<BidEntry>} bids - the auction of this deal so far, in order
 * @property {ContractModel | null} contract
 * @property {string | null} upcard - the face-up card of the auction, if any
 * @property {SeatCard | null} taken - the face-up card a seat took into its hand
 * @property {Array<SeatCard>} trick - the trick being played, in order
 * @property {number} leader - the seat that leads (or led) the current trick
 * @property {TrickModel | null} last_trick - the last completed trick
 * @property {Array<TrickModel>} tricks - every completed trick of the deal
 * @property {number} tricks_played
 * @property {Array<number>} tricks_won - per seat: tricks won this deal
 * @property {Array<number>} trick_points - per side: card points won in tricks
 * @property {Array<Array<PublicCarre | PublicSequence>>} declarations - per seat: the combinations it declared (kind and strength only)
 * @property {Array<ShownDeclaration>} shown_declarations
 * @property {Array<BeloteEntry>} belote
 * @property {Array<number>} scores - per side: the match score
 * @property {number} reserve - points hanging, carried to the next deal
 * @property {number | null} reserve_discarded - once the match is over: the reserve still waiting, discarded (D-8)
 * @property {Array<DealResultModel>} results - the score sheet: one line per deal
 * @property {number | null} winner - the side that won the match, once it is over
 * @property {ClaimModel | null} claim - a claim of the remaining tricks being played out (RULES.md §15), or null
 */

/**
 * The whole picture: on connect, on a resume that cannot be served by updates, after a stale action. ``view`` is null while the table waits; ``views`` holds one seat view per seat held when the socket holds several (``local`` games), else it is empty.
 * @typedef {Object} StateOut
 * @property {"state"} type
 * @property {number} version
 * @property {"seat" | "spectator"} role
 * @property {Array<number>} seats_you_hold
 * @property {BelaSeatView | DuelSeatView | SeatView | BelaSpectatorView | DuelSpectatorView | SpectatorView | null} view
 * @property {Object<string, BelaSeatView | DuelSeatView | SeatView>} views
 * @property {RoomModel} room
 * @property {Array<ChatLineModel>} chat
 * @property {Array<CardPlayedByModel | CallByModel>} moves_by
 */

/**
 * The table's settings (friends games; the host chooses them at creation).
 * @typedef {Object} TableSettingsModel
 * @property {"none" | 15 | 30 | 60 | 120} clock
 * @property {"easy" | "medium" | "hard"} stand_in
 * @property {number} away_seconds
 * @property {boolean} chat
 * @property {boolean} spectator_chat
 * @property {BoardModel | null} board - a tournament board (docs/tournaments.md): the game is that one deal
 */

/**
 * Bela: every seat picked up its talon.
 * @typedef {Object} TalonsPickedUpEvent
 * @property {"talons_picked_up"} type
 */

/**
 * What the variant is like (``Rules.traits``): a client asks these, never the name.
 * @typedef {Object} TraitsModel
 * @property {Array<number>} player_counts - the numbers of players the variant is played by
 * @property {boolean} deal_is_game - each deal is a whole game, scored and rated when it ends (duel): no match
 * @property {boolean} hand_in_piles - each seat's cards lie face up in its table piles (piles), none in a hidden hand (duel)
 * @property {boolean} has_talon - each seat has a talon it picks up after the bidding (talon_counts)
 * @property {"turn_up" | "proposal" | null} upcard - what the auction's face-up card is when there is one: a turn-up the taker takes (shown during the bidding), or a proposal lying on the rest of the deck all deal long; null: the variant has none
 * @property {number} scoring_sides - how many sides the score sheet has (scores, trick_points)
 * @property {boolean} declarations - combinations are declared in this game
 * @property {Array<"C" | "D" | "H" | "S" | "NT" | "AT">} denominations - the contracts this game can play
 * @property {"french" | "standard"} points_scale - card points of NT and AT contracts: the French SA/TA tables, or the plain and trump points (RULES.md §0.3)
 * @property {boolean} no_trumps_doubled - in NT, card points and the last trick count double (bulgarian)
 */

/**
 * A completed trick: who led, the cards in order, who won it and its card points.
 * @typedef {Object} TrickModel
 * @property {number} leader
 * @property {Array<SeatCard>} plays
 * @property {number} winner
 * @property {number} points
 */

/**
 * ``number`` counts the deal's tricks from 1; ``points`` are the trick's card points.
 * @typedef {Object} TrickWonEvent
 * @property {"trick_won"} type
 * @property {number} seat
 * @property {number} points
 * @property {number} number
 */

/**
 * Classic in turn_up bidding: the turned card.
 * @typedef {Object} TurnUpEvent
 * @property {"turn_up"} type
 * @property {string} card - rank (7 8 9 T J Q K A) then suit (C D H S), e.g. TH
 */

/**
 * @typedef {Object} UpcardTakenEvent
 * @property {"upcard_taken"} type
 * @property {number} seat
 * @property {string} card - rank (7 8 9 T J Q K A) then suit (C D H S), e.g. TH
 */

/**
 * One change of the game: ``version`` grows by one; ``events`` are the engine events this recipient may see; ``view`` (``views``: per seat held) holds the fields that changed.
 * @typedef {Object} UpdateOut
 * @property {"update"} type
 * @property {number} version
 * @property {ViewDelta} view
 * @property {Object<string, ViewDelta> | null} [views]
 * @property {Array<BeloteEvent | BidEvent | CardPlayedEvent | ClaimedEvent | ContractEvent | DealScoredEvent | DealStartedEvent | DealThrownInEvent | DeclarationsShownEvent | DeclaredEvent | DiscardEvent | DiscardedEvent | ExchangedEvent | HandEvent | MatchOverEvent | ProposalEvent | RevealedEvent | TalonsPickedUpEvent | TrickWonEvent | TurnUpEvent | UpcardTakenEvent>} events
 */

/**
 * An update's view: only the fields of the recipient's view that changed since the previous version (any field of a seat or spectator view). Merge it into the view held.
 * @typedef {Object} ViewDelta
 * @property {"classic" | "coinche" | "bulgarian" | "bela" | "duel"} [variant]
 * @property {number} [players]
 * @property {TraitsModel} [traits] - what the variant is like, the same all game long: ask these, not variant
 * @property {Object<string, boolean | number | string>} [options] - the match's options (RULES.md §11), defaults filled
 * @property {Array<number>} [sides] - per seat: its side (team, or the seat itself)
 * @property {number | null} [target] - the score that ends the match (duel: null)
 * @property {"bidding" | "exchange" | "discard" | "play" | "deal_over" | "match_over"} [phase]
 * @property {number} [deal_number] - the deal in progress or just scored, from 0
 * @property {number} [dealer]
 * @property {number | null} [to_act] - the seat to act, null when nobody is
 * @property {Array<number>} [hand_counts] - per seat: how many cards it holds
 * @property {Array<BidEntry>} [bids] - the auction of this deal so far, in order
 * @property {ContractModel | null} [contract]
 * @property {string | null} [upcard] - the face-up card of the auction, if any
 * @property {SeatCard | null} [taken] - the face-up card a seat took into its hand
 * @property {Array<SeatCard>} [trick] - the trick being played, in order
 * @property {number} [leader] - the seat that leads (or led) the current trick
 * @property {TrickModel | null} [last_trick] - the last completed trick
 * @property {Array<TrickModel>} [tricks] - every completed trick of the deal
 * @property {number} [tricks_played]
 * @property {Array<number>} [tricks_won] - per seat: tricks won this deal
 * @property {Array<number>} [trick_points] - per side: card points won in tricks
 * @property {Array<Array<PublicCarre | PublicSequence>>} [declarations] - per seat: the combinations it declared (kind and strength only)
 * @property {Array<ShownDeclaration>} [shown_declarations]
 * @property {Array<BeloteEntry>} [belote]
 * @property {Array<number>} [scores] - per side: the match score
 * @property {number} [reserve] - points hanging, carried to the next deal
 * @property {number | null} [reserve_discarded] - once the match is over: the reserve still waiting, discarded (D-8)
 * @property {Array<DealResultModel>} [results] - the score sheet: one line per deal
 * @property {number | null} [winner] - the side that won the match, once it is over
 * @property {ClaimModel | null} [claim] - a claim of the remaining tricks being played out (RULES.md §15), or null
 * @property {Array<number>} [talon_counts] - per seat: cards left in its talon
 * @property {number} [middle_count] - bela for three: cards in the middle
 * @property {number} [discarded] - bela for three: cards the taker put away
 * @property {number | null} [exchanged] - bela for two: the seat that took the seven
 * @property {Array<Array<PileModel>>} [piles] - per seat: its eight table piles
 * @property {number} [seat] - the seat this view is for
 * @property {Array<string>} [hand] - the cards this seat holds
 * @property {Array<BidAction | DeclareAction | DiscardAction | DoubleAction | ExchangeAction | PassAction | PlayAction | RedoubleAction>} [legal] - what this seat may do now (empty when it is not to act): send one as is
 * @property {boolean} [can_claim] - this seat may claim every remaining trick now (RULES.md §15): send claim
 * @property {Array<string> | null} [discard] - bela for three: the taker's own discards
 */

/**
 * The view a table holds (merged from `state` and `update`): the fields of any view
 * (SpectatorView, BelaSpectatorView, DuelSpectatorView, SeatView, BelaSeatView, DuelSeatView); those some view lacks are optional.
 * @typedef {Object} TableView
 * @property {"classic" | "coinche" | "bulgarian" | "bela" | "duel"} variant
 * @property {number} players
 * @property {TraitsModel} traits
 * @property {Object<string, boolean | number | string>} options
 * @property {Array<number>} sides
 * @property {number | null} target
 * @property {"bidding" | "exchange" | "discard" | "play" | "deal_over" | "match_over"} phase
 * @property {number} deal_number
 * @property {number} dealer
 * @property {number | null} to_act
 * @property {Array<number>} hand_counts
 * @property {Array<BidEntry>} bids
 * @property {ContractModel | null} contract
 * @property {string | null} upcard
 * @property {SeatCard | null} taken
 * @property {Array<SeatCard>} trick
 * @property {number} leader
 * @property {TrickModel | null} last_trick
 * @property {Array<TrickModel>} tricks
 * @property {number} tricks_played
 * @property {Array<number>} tricks_won
 * @property {Array<number>} trick_points
 * @property {Array<Array<PublicCarre | PublicSequence>>} declarations
 * @property {Array<ShownDeclaration>} shown_declarations
 * @property {Array<BeloteEntry>} belote
 * @property {Array<number>} scores
 * @property {number} reserve
 * @property {number | null} reserve_discarded
 * @property {Array<DealResultModel>} results
 * @property {number | null} winner
 * @property {ClaimModel | null} claim
 * @property {Array<number>} [talon_counts]
 * @property {number} [middle_count]
 * @property {number} [discarded]
 * @property {number | null} [exchanged]
 * @property {Array<Array<PileModel>>} [piles]
 * @property {number} [seat]
 * @property {Array<string>} [hand]
 * @property {Array<BidAction | DeclareAction | DiscardAction | DoubleAction | ExchangeAction | PassAction | PlayAction | RedoubleAction>} [legal]
 * @property {boolean} [can_claim]
 * @property {Array<string> | null} [discard]
 */

export {};
