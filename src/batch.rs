//! Ordered parallel processing of many pages: results come out in input order, identical for
//! any number of threads, with only a bounded window of pages in memory.

use rayon::prelude::*;

/// Pages processed per parallel window. Large enough to keep every thread busy, small enough
/// that a window of big pages stays within memory.
const WINDOW_PER_THREAD: usize = 16;

/// Most worker threads a run starts; a larger count is cut to it. Past it, starting the
/// threads can exhaust the process's memory maps and abort instead of failing.
pub const MAX_THREADS: usize = 1024;

/// Apply `work` to every item on `threads` threads (0 = all cores, at most [`MAX_THREADS`])
/// and hand the results to `sink` in input order. Stops early, returning the sink's error, when the sink fails.
pub fn run_ordered<I, T, E>(
    items: impl IntoIterator<Item = I>,
    threads: usize,
    work: impl Fn(I) -> T + Sync + Send,
    mut sink: impl FnMut(T) -> Result<(), E>,
) -> Result<(), E>
where
    I: Send,
    T: Send,
{
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads.min(MAX_THREADS))
        .build()
        .ok();
    let n_threads = pool
        .as_ref()
        .map_or_else(rayon::current_num_threads, |p| p.current_num_threads());
    let window = WINDOW_PER_THREAD * n_threads.max(1);
    let mut items = items.into_iter();
    loop {
        let chunk: Vec<I> = items.by_ref().take(window).collect();
        if chunk.is_empty() {
            return Ok(());
        }
        let results: Vec<T> = if n_threads <= 1 {
            chunk.into_iter().map(&work).collect()
        } else {
            let run = || chunk.into_par_iter().map(&work).collect();
            match &pool {
                Some(p) => p.install(run),
                None => run(),
            }
        };
        for r in results {
            sink(r)?;
        }
    }
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
}
