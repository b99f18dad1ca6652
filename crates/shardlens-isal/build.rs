//! Links ISA-L's inflate (igzip) when the system has it (Debian/Ubuntu: `libisal-dev`), for gzip files
//! inflated about 1.5x faster than zlib-rs (docs/performance.md); without it shardlens builds as before and
//! inflates with zlib-rs. `SHARDLENS_NO_ISAL=1` builds without it even when it is there.

fn main() {
    println!("cargo:rustc-check-cfg=cfg(shardlens_isal)");
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=src/shim.c");
    println!("cargo:rerun-if-env-changed=SHARDLENS_NO_ISAL");
    // Probe again when a package adds or removes a pkg-config file (installing libisal-dev later).
    if let Ok(out) = std::process::Command::new("pkg-config")
        .args(["--variable", "pc_path", "pkg-config"])
        .output()
    {
        for dir in String::from_utf8_lossy(&out.stdout).trim().split(':') {
            if std::path::Path::new(dir).is_dir() {
                println!("cargo:rerun-if-changed={dir}");
            }
        }
    }
    if std::env::var_os("SHARDLENS_NO_ISAL").is_some_and(|v| !v.is_empty() && v != "0") {
        return;
    }
    let Ok(isal) = pkg_config::Config::new()
        .cargo_metadata(false)
        .probe("libisal")
    else {
        println!(
            "cargo:warning=ISA-L not found (Debian/Ubuntu: apt install libisal-dev): gzip files will inflate \
             with zlib-rs, about 1.5x slower"
        );
        return;
    };
    let mut shim = cc::Build::new();
    shim.file("src/shim.c").opt_level(2);
    for dir in &isal.include_paths {
        shim.include(dir);
    }
    if let Err(e) = shim.try_compile("shardlens_isal") {
        println!(
            "cargo:warning=ISA-L found but its shim did not compile ({e}): gzip files will inflate with zlib-rs"
        );
        return;
    }
    for dir in &isal.link_paths {
        println!("cargo:rustc-link-search=native={}", dir.display());
    }
    for lib in &isal.libs {
        println!("cargo:rustc-link-lib={lib}");
    }
    println!("cargo:rustc-cfg=shardlens_isal");
}
