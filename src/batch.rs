//! Ordered parallel processing of many pages: results come out in input order, identical for
//! any number of threads, with only a bounded window of pages in memory.
//!
//! One thread takes the items from the input iterator (a stream, such as a WARC file, can only
//! be read in order; [`crate::input::pending_pages`] leaves page files for the workers to
//! read), worker threads process them as they come, and the calling thread hands the results
//! to the sink in input order. An item is taken only when fewer than a window of items are
//! between the iterator and the sink, so a slow page holds back the reading, never the memory.

use std::cell::Cell;
use std::collections::BTreeMap;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Mutex};

/// Pages in flight per worker thread (read, processing, or waiting for an earlier page): enough
/// to keep every worker busy while one page is slow, few enough that big pages fit in memory.
const WINDOW_PER_THREAD: usize = 8;

/// Most worker threads a run starts; a larger count is cut to it. Past it, starting the
/// threads can exhaust the process's memory maps and abort instead of failing.
pub const MAX_THREADS: usize = 1024;

thread_local! {
    /// How many [`isolate`] calls this thread is inside.
    static ISOLATED: Cell<u32> = const { Cell::new(0) };
}

/// Run one page's work so that a panic in it (a bug, in textsift or a crate it uses) becomes
/// that page's [`Error::Internal`](crate::Error::Internal) instead of ending the run: a corpus
/// run reports the page and goes on with the others. The panic hook still runs first (the
/// default one prints the panic on stderr; [`in_isolation`] lets a program's own hook keep
/// quiet about panics that are reported this way). Where panics abort (`panic = "abort"`),
/// nothing can be caught.
pub fn isolate<T>(work: impl FnOnce() -> crate::Result<T>) -> crate::Result<T> {
    /// Leaves the isolation however the work ends.
    struct Depth;
    impl Drop for Depth {
        fn drop(&mut self) {
            ISOLATED.with(|d| d.set(d.get() - 1));
        }
    }
    ISOLATED.with(|d| d.set(d.get() + 1));
    let _depth = Depth;
    // The work's state is dropped as the panic unwinds, and only its error is kept.
    std::panic::catch_unwind(AssertUnwindSafe(work)).unwrap_or_else(|panic| {
        let message = panic
            .downcast_ref::<&str>()
            .copied()
            .or_else(|| panic.downcast_ref::<String>().map(String::as_str))
            .unwrap_or("a panic without a message");
        // One line, as every error's message is.
        let message = message.split_whitespace().collect::<Vec<_>>().join(" ");
        Err(crate::Error::Internal(message))
    })
}

/// Whether this thread is running work inside [`isolate`], whose panics become errors.
pub fn in_isolation() -> bool {
    ISOLATED.with(|d| d.get() > 0)
}

/// Apply `work` to every item on `threads` threads (0 = all cores, at most [`MAX_THREADS`])
/// and hand the results to `sink` in input order. Stops early, returning the sink's error,
/// when the sink fails. With one thread every item is read, processed and handed over in turn
/// on the calling thread.
pub fn run_ordered<I, T, E>(
    items: impl IntoIterator<Item = I, IntoIter: Send>,
    threads: usize,
    work: impl Fn(I) -> T + Sync,
    mut sink: impl FnMut(T) -> Result<(), E>,
) -> Result<(), E>
where
    I: Send,
    T: Send,
{
    let threads = match threads {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        n => n,
    }
    .min(MAX_THREADS);
    if threads == 1 {
        return items.into_iter().try_for_each(|item| sink(work(item)));
    }
    let window = WINDOW_PER_THREAD * threads;
    let mut items = items.into_iter();
    // A token per page in flight: the reader takes one before reading a page, the sink gives
    // it back once the page's result is handed over.
    let (token_tx, token_rx) = mpsc::sync_channel::<()>(window);
    for _ in 0..window {
        let _ = token_tx.send(());
    }
    let (job_tx, job_rx) = mpsc::channel::<(usize, I)>();
    let job_rx = Mutex::new(job_rx);
    let (done_tx, done_rx) = mpsc::channel::<(usize, std::thread::Result<T>)>();
    // Set when the sink fails: the reader stops and the workers drop what is left.
    let stop = AtomicBool::new(false);
    std::thread::scope(|scope| {
        let stop = &stop;
        scope.spawn(move || {
            let mut k = 0;
            while token_rx.recv().is_ok() && !stop.load(Ordering::Relaxed) {
                let Some(item) = items.next() else { break };
                if job_tx.send((k, item)).is_err() {
                    break;
                }
                k += 1;
            }
            // The job sender is dropped here, so the workers end once the queue is empty.
        });
        for _ in 0..threads {
            let done_tx = done_tx.clone();
            let (job_rx, work) = (&job_rx, &work);
            scope.spawn(move || loop {
                // The lock is held only to take a job, not while working on it.
                let job = job_rx.lock().ok().and_then(|rx| rx.recv().ok());
                let Some((k, item)) = job else { break };
                if stop.load(Ordering::Relaxed) {
                    continue;
                }
                // A panic is passed to the caller's thread rather than left to end this one:
                // the pages after it would wait for its result for ever.
                let result = std::panic::catch_unwind(AssertUnwindSafe(|| work(item)));
                if done_tx.send((k, result)).is_err() {
                    break;
                }
            });
        }
        drop(done_tx);
        // Owned here, so that it is dropped as soon as the sink fails or a page's work panics
        // (before the threads are joined): a reader waiting for a token then stops at once.
        let token_tx = token_tx;
        let mut waiting = BTreeMap::new();
        let mut next = 0;
        for (k, result) in done_rx.iter() {
            waiting.insert(k, result);
            while let Some(result) = waiting.remove(&next) {
                next += 1;
                let result = match result {
                    Ok(result) => result,
                    Err(panic) => {
                        stop.store(true, Ordering::Relaxed);
                        std::panic::resume_unwind(panic);
                    }
                };
                if let Err(e) = sink(result) {
                    stop.store(true, Ordering::Relaxed);
                    return Err(e);
                }
                let _ = token_tx.try_send(());
            }
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_is_kept_for_any_thread_count() {
        for threads in [1, 2, 3] {
            let mut out = Vec::new();
            run_ordered(
                0..500u32,
                threads,
                |i| i * 2,
                |r| {
                    out.push(r);
                    Ok::<_, ()>(())
                },
            )
            .unwrap();
            assert_eq!(out, (0..500).map(|i| i * 2).collect::<Vec<_>>());
        }
    }

    #[test]
    fn a_huge_thread_count_is_cut_not_fatal() {
        // Starting this many threads would abort the process; the count is cut to the cap.
        let mut out = Vec::new();
        run_ordered(
            0..50u32,
            1_000_000,
            |i| i + 1,
            |r| {
                out.push(r);
                Ok::<_, ()>(())
            },
        )
        .unwrap();
        assert_eq!(out, (1..=50).collect::<Vec<_>>());
    }

    #[test]
    fn sink_error_stops_the_run() {
        let mut seen = 0;
        let r = run_ordered(
            0..10_000u32,
            2,
            |i| i,
            |i| {
                seen += 1;
                if i == 5 {
                    Err("stop")
                } else {
                    Ok(())
                }
            },
        );
        assert_eq!(r, Err("stop"));
        assert_eq!(seen, 6);
    }

    #[test]
    fn an_endless_input_ends_when_the_sink_fails() {
        for threads in [1, 2] {
            let r = run_ordered(
                0u64..,
                threads,
                |i| i,
                |i| if i == 100 { Err(i) } else { Ok(()) },
            );
            assert_eq!(r, Err(100), "{threads} threads");
        }
    }

    #[test]
    fn pages_in_flight_are_bounded_by_the_window() {
        use std::sync::atomic::AtomicUsize;
        let read = AtomicUsize::new(0);
        let items = (0..2_000usize).inspect(|_| {
            read.fetch_add(1, Ordering::SeqCst);
        });
        let mut most = 0;
        let mut sunk = 0;
        run_ordered(
            items,
            3,
            |i| i,
            |_| {
                sunk += 1;
                most = most.max(read.load(Ordering::SeqCst) - sunk);
                Ok::<_, ()>(())
            },
        )
        .unwrap();
        assert_eq!(sunk, 2_000);
        assert!(most < WINDOW_PER_THREAD * 3, "{most} pages in flight");
    }

    #[test]
    fn a_result_is_handed_over_before_the_next_page_arrives() {
        // As a slow producer piped into the command: the first page's result must come out
        // before the second page is read, not once a window of pages has arrived.
        for threads in [1, 2] {
            let (seen_tx, seen_rx) = mpsc::channel::<u32>();
            let items = (0..3u32).inspect(move |&i| {
                if i > 0 {
                    let got = seen_rx.recv_timeout(std::time::Duration::from_secs(20));
                    assert_eq!(
                        got,
                        Ok(i - 1),
                        "page {i} waited for the result of page {}",
                        i - 1
                    );
                }
            });
            let mut out = Vec::new();
            let seen_tx = Mutex::new(seen_tx);
            run_ordered(
                items,
                threads,
                |i| i,
                |i| {
                    out.push(i);
                    // The last page's result finds the input gone.
                    let _ = seen_tx.lock().unwrap().send(i);
                    Ok::<_, ()>(())
                },
            )
            .unwrap();
            assert_eq!(out, [0, 1, 2], "{threads} threads");
        }
    }

    /// Quiet hooks for the tests that panic on purpose, as the CLI installs: a panic outside
    /// isolation would still be printed.
    fn quiet_inside_isolation() {
        static HOOK: std::sync::Once = std::sync::Once::new();
        HOOK.call_once(|| {
            let default = std::panic::take_hook();
            std::panic::set_hook(Box::new(move |info| {
                if !in_isolation() {
                    default(info);
                }
            }));
        });
    }

    #[test]
    fn a_panic_in_isolation_is_the_pages_error() {
        quiet_inside_isolation();
        assert!(!in_isolation());
        assert!(isolate(|| Ok(in_isolation())).unwrap());
        let r: crate::Result<()> = isolate(|| Err(crate::Error::Empty));
        assert!(matches!(r, Err(crate::Error::Empty)), "{r:?}");
        let r: crate::Result<()> = isolate(|| panic!("page {}", 7));
        match r {
            Err(crate::Error::Internal(m)) => assert_eq!(m, "page 7"),
            r => panic!("{r:?}"),
        }
        // A message of several lines is one line.
        let r: crate::Result<()> = isolate(|| panic!("line one\n  line two"));
        assert!(matches!(r, Err(crate::Error::Internal(m)) if m == "line one line two"));
        let r: crate::Result<()> = isolate(|| {
            // Nested: the inner panic is the inner call's error, and the outer goes on.
            let inner: crate::Result<()> = isolate(|| panic!("inner"));
            assert!(in_isolation());
            inner
        });
        assert!(matches!(r, Err(crate::Error::Internal(m)) if m == "inner"));
        assert!(!in_isolation(), "the depth is given back after a panic");
    }

    #[test]
    fn a_panicking_page_in_a_batch_leaves_the_others() {
        quiet_inside_isolation();
        for threads in [1, 2, 4] {
            let mut results = Vec::new();
            run_ordered(
                0..200u32,
                threads,
                |i| {
                    isolate(|| match i {
                        13 | 150 => panic!("page {i}"),
                        i => Ok(i),
                    })
                },
                |r| {
                    results.push(r);
                    Ok::<_, ()>(())
                },
            )
            .unwrap();
            assert_eq!(results.len(), 200, "{threads} threads");
            for (i, r) in results.iter().enumerate() {
                match (i, r) {
                    (13 | 150, Err(crate::Error::Internal(m))) => {
                        assert_eq!(m, &format!("page {i}"))
                    }
                    (i, Ok(v)) => assert_eq!(*v as usize, i),
                    (i, r) => panic!("page {i}: {r:?}"),
                }
            }
        }
    }

    #[test]
    fn a_panic_in_the_work_reaches_the_caller() {
        // Not a hang: the pages after the one that panicked would wait for its result.
        let r = std::panic::catch_unwind(|| {
            run_ordered(
                0..1_000u32,
                2,
                |i| if i == 40 { panic!("page {i}") } else { i },
                |_| Ok::<_, ()>(()),
            )
        });
        let panic = r.expect_err("the panic is passed on");
        assert_eq!(
            panic.downcast_ref::<String>().map(String::as_str),
            Some("page 40")
        );
    }
}
