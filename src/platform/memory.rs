//! How the process's memory allocator treats large buffers. glibc's malloc serves a large block
//! by mapping fresh pages, but after such a block is freed it raises its threshold (up to 32 MB
//! on 64-bit), so the next ones come from the heap and stay in the process after use: a 10 MB
//! document read, an upload, a picture decoded. Fixing the threshold at 1 MB gives every large
//! buffer back to the system when it is dropped (issue 52 §5: reading 50 documents of 10 MB took
//! 315 MB above idle with the moving threshold).
/// Blocks at least this large are mapped on their own and unmapped when freed.
const LARGE_BLOCK_BYTES: i32 = 1 << 20;

/// Sets the allocator's threshold once for the process (glibc on Linux; elsewhere nothing).
pub fn tune() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        #[cfg(all(target_os = "linux", target_env = "gnu"))]
        {
            // SAFETY: mallopt only changes the allocator's parameters, under its own lock.
            let ok = unsafe { libc::mallopt(libc::M_MMAP_THRESHOLD, LARGE_BLOCK_BYTES) };
            if ok != 1 {
                tracing::warn!("could not set the allocator's large-block threshold");
            }
        }
    });
}
