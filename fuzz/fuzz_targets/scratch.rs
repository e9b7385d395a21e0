//! A scratch file per fuzzing process, for targets that read their input from a path.

use std::path::PathBuf;

/// `/dev/shm/textsift-fuzz-PID-NAME` (the temporary directory where there is no `/dev/shm`),
/// with the bytes written to it.
pub fn write(name: &str, data: &[u8]) -> PathBuf {
    let dir = if std::path::Path::new("/dev/shm").is_dir() {
        PathBuf::from("/dev/shm")
    } else {
        std::env::temp_dir()
    };
    let path = dir.join(format!("textsift-fuzz-{}-{name}", std::process::id()));
    std::fs::write(&path, data).expect("the scratch file is writable");
    path
}
