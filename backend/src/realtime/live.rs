//! The sessions this instance knows to be live, so that a request's session check costs no round
//! trip (`auth::sessions`). The knowledge is trusted only while the instance hears every end:
//!
//! - An entry is dropped as soon as this instance hears of its session's end (`Hub::deliver`, and
//!   the ending instance itself before it announces the end), and the instance that ends a session
//!   answers only once every instance has confirmed that it heard (`Hub::send`'s barrier): a
//!   session ended through one instance is refused by all of them from that answer on.
//! - The whole set is trusted only while the instance's subscription to the other instances'
//!   events is known alive (a PING answered on it within `FRESH`). When it is lost, the set is
//!   emptied and checks go to Redis and PostgreSQL until it is back.
//! - An entry never outlives what it was learnt from (Redis's cached answer, bounded by the
//!   session's expiry and idle deadline) nor `ENTRY_TTL`.
//! - A check that was answered "live" by Redis may have raced with an end heard meanwhile: each
//!   end (and each loss of trust) moves a generation, and an answer is kept only if the generation
//!   did not move while it was being fetched.

use std::{
    collections::HashMap,
    sync::Mutex,
    time::{Duration, Instant},
};

use uuid::Uuid;

/// How long an entry may be used without asking Redis again.
pub const ENTRY_TTL: Duration = Duration::from_secs(30);
/// How recently the subscription must have answered a PING for the set to be trusted.
pub const FRESH: Duration = Duration::from_secs(3);
/// Bounds the memory: past this many entries, the expired ones go, and if none had expired, all.
const MAX_ENTRIES: usize = 200_000;

#[derive(Default)]
pub struct LiveSessions(Mutex<Inner>);

#[derive(Default)]
struct Inner {
    /// When the subscription last answered a PING; `None` while there is no subscription.
    heard_at: Option<Instant>,
    generation: u64,
    entries: HashMap<Uuid, Entry>,
}

struct Entry {
    until: Instant,
    /// When this instance next queues a `last_seen_at` write for the session.
    seen_due: Instant,
}

/// What a check learnt before it asked Redis or PostgreSQL: it may keep their answer only if
/// nothing was heard meanwhile.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ticket(u64);

impl LiveSessions {
    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.0.lock().expect("live sessions lock")
    }

    /// Whether the session is known live here: `Some(due)` with whether its `last_seen_at` is due
    /// a write (at most once per `seen_every` per instance; never for a check that is no use of
    /// the session, `seen_every` none), `None` when it must be asked about.
    pub fn check(&self, id: Uuid, seen_every: Option<Duration>) -> Option<bool> {
        let now = Instant::now();
        let mut inner = self.lock();
        if !inner.trusted(now) {
            return None;
        }
        let entry = inner.entries.get_mut(&id)?;
        if entry.until <= now {
            inner.entries.remove(&id);
            return None;
        }
        let Some(seen_every) = seen_every else { return Some(false) };
        let due = entry.seen_due <= now;
        if due {
            entry.seen_due = now + seen_every;
        }
        Some(due)
    }

    /// Taken before asking Redis or PostgreSQL; `None` while the set is not trusted.
    pub fn ticket(&self) -> Option<Ticket> {
        let inner = self.lock();
        inner.trusted(Instant::now()).then_some(Ticket(inner.generation))
    }

    /// Keeps a "live" answer for up to `for_at_most` (and `ENTRY_TTL`), unless something was
    /// heard since `ticket` was taken. The answer's asker has just queued the session's write.
    pub fn keep(&self, ticket: Ticket, id: Uuid, for_at_most: Duration, seen_every: Duration) {
        let now = Instant::now();
        let mut inner = self.lock();
        if inner.generation != ticket.0 || !inner.trusted(now) {
            return;
        }
        if inner.entries.len() >= MAX_ENTRIES {
            inner.entries.retain(|_, entry| entry.until > now);
            if inner.entries.len() >= MAX_ENTRIES {
                inner.entries.clear();
            }
        }
        inner.entries.insert(id, Entry { until: now + for_at_most.min(ENTRY_TTL), seen_due: now + seen_every });
    }

    /// These sessions ended: forgotten at once, and no answer fetched before now is kept.
    pub fn ended(&self, ids: impl IntoIterator<Item = Uuid>) {
        let mut inner = self.lock();
        inner.generation += 1;
        for id in ids {
            inner.entries.remove(&id);
        }
    }

    /// The subscription answered a PING sent at `sent`, and every message queued before that
    /// answer was handled: everything published before `sent` has been heard.
    pub fn heard(&self, sent: Instant) {
        let mut inner = self.lock();
        inner.heard_at = Some(inner.heard_at.map_or(sent, |at| at.max(sent)));
    }

    /// The subscription is lost: ends may go unheard, so nothing is known any more.
    pub fn deaf(&self) {
        let mut inner = self.lock();
        inner.heard_at = None;
        inner.generation += 1;
        inner.entries.clear();
    }

    /// How many sessions are known live here (for tests and metrics).
    pub fn len(&self) -> usize {
        self.lock().entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl Inner {
    fn trusted(&self, now: Instant) -> bool {
        self.heard_at.is_some_and(|at| now.duration_since(at) < FRESH)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MINUTE: Duration = Duration::from_secs(60);

    #[test]
    fn nothing_is_known_until_the_subscription_is_heard_nor_after_it_is_lost() {
        let live = LiveSessions::default();
        let id = Uuid::now_v7();
        assert_eq!(live.ticket(), None, "no subscription yet");
        live.heard(Instant::now());
        let ticket = live.ticket().expect("trusted once heard");
        live.keep(ticket, id, MINUTE, MINUTE);
        assert_eq!(live.check(id, Some(MINUTE)), Some(false));
        live.deaf();
        assert_eq!(live.check(id, Some(MINUTE)), None, "forgotten when the subscription is lost");
        live.heard(Instant::now());
        assert_eq!(live.check(id, Some(MINUTE)), None, "and not remembered when it is back");
    }

    #[test]
    fn trust_lasts_from_when_the_answered_ping_was_sent_not_from_its_answer() {
        let live = LiveSessions::default();
        let now = Instant::now();
        live.heard(now - FRESH - Duration::from_millis(1));
        assert_eq!(live.ticket(), None, "a PING sent longer than FRESH ago vouches for nothing now, however late its answer came");
        live.heard(now);
        live.heard(now - FRESH - Duration::from_millis(1));
        assert!(live.ticket().is_some(), "an older PING's answer does not take back a newer one's");
    }

    #[test]
    fn an_end_heard_while_a_check_was_asking_is_not_undone_by_its_answer() {
        let live = LiveSessions::default();
        live.heard(Instant::now());
        let (id, other) = (Uuid::now_v7(), Uuid::now_v7());
        let ticket = live.ticket().unwrap();
        live.ended([id]);
        live.keep(ticket, id, MINUTE, MINUTE);
        assert_eq!(live.check(id, Some(MINUTE)), None, "the answer predates the end");
        let ticket = live.ticket().unwrap();
        live.keep(ticket, id, MINUTE, MINUTE);
        live.keep(ticket, other, MINUTE, MINUTE);
        live.ended([id]);
        assert_eq!((live.check(id, Some(MINUTE)), live.check(other, Some(MINUTE))), (None, Some(false)));
    }

    #[test]
    fn an_entry_lasts_no_longer_than_its_source_allowed_and_asks_for_a_write_once_per_period() {
        let live = LiveSessions::default();
        live.heard(Instant::now());
        let (short, long) = (Uuid::now_v7(), Uuid::now_v7());
        live.keep(live.ticket().unwrap(), short, Duration::ZERO, MINUTE);
        assert_eq!(live.check(short, Some(MINUTE)), None, "its cached answer had expired");
        live.keep(live.ticket().unwrap(), long, MINUTE, Duration::ZERO);
        assert_eq!(live.check(long, None), Some(false), "a check that is no use of it asks for none");
        assert_eq!(live.check(long, Some(MINUTE)), Some(true), "the write is due");
        assert_eq!(live.check(long, Some(MINUTE)), Some(false), "and queued once for the next minute");
    }
}
