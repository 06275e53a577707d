//! The npm package (`kubelive`): the Watcher alone, built without the Yew app.
//!
//! * `cargo xtask dist` writes it into `dist/npm/`: the Watcher-only wasm
//!   (`kubelive-web` with its `watcher` feature alone, in its own profile `wasm-watcher`),
//!   wasm-bindgen's glue, and from `web/npm/` the `Watcher` wrapper, its hand-written
//!   types, README, LICENSE and package.json (version from the workspace);
//! * `cargo xtask test` (its "npm package" step) packs it with `npm pack`, installs the
//!   tarball into a fresh directory, type-checks it with `tsc --strict` (lib es2022 +
//!   dom, no skipLibCheck, both module resolutions a dashboard uses), and runs the
//!   Watcher's contract tests (`web/tests/watcher.mjs`) and a page served from the
//!   installed package (`web/tests/package.mjs`) through kubectl proxy.

use crate::setup;
use crate::util::{cargo, command, have, output, root, run};
use crate::web::{self, Cluster, TempDir, Wasm};
use std::fmt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Writes the package into `dist/npm`; returns its wasm.
pub fn package(dist: &Path) -> Result<PathBuf, String> {
    let out = dist.join("npm");
    let watcher = Wasm {
        profile: "wasm-watcher",
        features: &["--no-default-features", "--features", "watcher"],
        out_name: "kubelive_watcher",
    };
    let bg = watcher.build(&out)?;
    // wasm-bindgen's own declarations name the internal class: index.d.ts is the API.
    for generated in ["kubelive_watcher.d.ts", "kubelive_watcher_bg.wasm.d.ts"] {
        let _ = std::fs::remove_file(out.join(generated));
    }
    let src = root().join("web/npm");
    for file in [
        "index.js",
        "index.d.ts",
        "component.js",
        "component.d.ts",
        "worker.js",
        "README.md",
        "LICENSE",
    ] {
        web::copy(&src.join(file), &out.join(file))?;
    }
    let manifest = std::fs::read_to_string(src.join("package.json"))
        .map_err(|e| format!("cannot read web/npm/package.json: {e}"))?;
    let version = env!("CARGO_PKG_VERSION");
    let manifest: String = manifest
        .lines()
        .map(|line| match line.trim_start().starts_with("\"version\":") {
            true => format!("  \"version\": \"{version}\","),
            false => line.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n");
    std::fs::write(out.join("package.json"), manifest + "\n")
        .map_err(|e| format!("cannot write package.json: {e}"))?;
    Ok(bg)
}

/// The React example (`web/example/react/app.jsx`, copied into `dist/example/react/`)
/// bundled with esbuild into `app.js`: React and the page in one file, the package
/// (`dist/npm/index.js`) left external so its wasm loads from next to it.
pub fn react_example(dist: &Path) -> Result<(), String> {
    dev_packages()?;
    let web = root().join("web");
    let out = dist.join("example/react");
    let mut esbuild = Command::new(web.join("node_modules/.bin/esbuild"));
    esbuild
        .arg(web.join("example/react/app.jsx"))
        .args([
            "--bundle",
            "--format=esm",
            "--target=es2022",
            "--jsx=automatic",
            "--minify",
            "--define:process.env.NODE_ENV=\"production\"",
            "--external:../../npm/index.js",
            "--log-level=warning",
        ])
        .arg(format!("--outfile={}", out.join("app.js").display()));
    run(esbuild)?;
    let _ = std::fs::remove_file(out.join("app.jsx"));
    Ok(())
}

/// A file's size raw, gzipped (-9) and brotli-compressed (quality 11, with Node's zlib).
pub struct Sizes {
    name: String,
    raw: u64,
    gzip: Option<u64>,
    brotli: Option<u64>,
}

impl Sizes {
    pub fn of(path: &Path) -> Sizes {
        let brotli = have("node")
            .then(|| {
                let script = "const z=require('zlib');const b=require('fs').readFileSync(process.argv[1]);\
                    process.stdout.write(String(z.brotliCompressSync(b,{params:{[z.constants.BROTLI_PARAM_QUALITY]:11}}).length))";
                let mut c = command("node", &["-e", script]);
                c.arg(path).stderr(Stdio::null());
                output(c).ok()?.trim().parse().ok()
            })
            .flatten();
        Sizes {
            name: path
                .strip_prefix(root())
                .unwrap_or(path)
                .display()
                .to_string(),
            raw: std::fs::metadata(path).map(|m| m.len()).unwrap_or(0),
            gzip: web::gzipped_size(path),
            brotli,
        }
    }
}

impl fmt::Display for Sizes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kb = |b: Option<u64>| match b {
            Some(b) => format!("{:.1} KB", b as f64 / 1024.0),
            None => "?".into(),
        };
        write!(
            f,
            "{}: {} raw, {} gzip, {} brotli",
            self.name,
            kb(Some(self.raw)),
            kb(self.gzip),
            kb(self.brotli)
        )
    }
}

/// What the package must hold, and nothing else.
const PACKAGE_FILES: [&str; 10] = [
    "LICENSE",
    "README.md",
    "component.d.ts",
    "component.js",
    "index.d.ts",
    "index.js",
    "kubelive_watcher.js",
    "kubelive_watcher_bg.wasm",
    "package.json",
    "worker.js",
];

/// The "npm package" test step.
pub fn test_step() -> Result<(), String> {
    suites(&[])
}

/// `cargo xtask npm [NAME...]`: the npm package step alone (after `cargo xtask dist`),
/// or only its scripts whose name contains a NAME (the pack, install and type check
/// always run).
pub fn run_command(only: &[String]) -> Result<(), String> {
    web::dist(&[])?;
    suites(only)
}

fn suites(only: &[String]) -> Result<(), String> {
    let wanted = |script: &str| only.is_empty() || only.iter().any(|n| script.contains(n.as_str()));
    setup::browser()?;
    setup::npm_packages()?;
    dev_packages()?;
    if !web::dist_dir()
        .join("npm/kubelive_watcher_bg.wasm")
        .exists()
    {
        web::dist(&[])?;
    }
    let tmp = TempDir::new("npm")?;
    let installed = install(&tmp.0)?;
    let mut failures = Vec::new();
    if let Err(e) = type_check(&installed) {
        failures.push(e);
    }

    // A user allowed list and watch of everything in ns-0 and ns-1 only: pods there
    // work, pods in all namespaces are a 403, an unknown resource there a 404. A short
    // watch cache window makes a watcher stopped a while come back to a 410.
    let cluster = Cluster {
        objects: 60,
        churn: 20.0,
        faults: String::new(),
        extra: [
            "--namespaces",
            "4",
            "--watch-cache-window",
            "6",
            "--user",
            "jane@example.com",
            "--allow",
            "list,watch:*@ns-0,ns-1",
        ]
        .map(String::from)
        .to_vec(),
    };
    let artifacts = root().join("artifacts");
    let _ = std::fs::create_dir_all(&artifacts);
    let running = web::start_cluster(&cluster, 0, true)?;
    // The installed package's page, served by a kubectl proxy of its own.
    let pkg_port = web::free_port()?;
    let mut kids = web::Children::default();
    web::start_proxy(
        &running.kubeconfig(),
        &installed,
        "/pkg/",
        pkg_port,
        true,
        &mut kids,
    )?;
    let env = [
        (
            "BASE_URL",
            format!("http://127.0.0.1:{}", running.proxy_port),
        ),
        ("PKG_URL", format!("http://127.0.0.1:{pkg_port}/pkg/")),
        ("ARTIFACTS", artifacts.display().to_string()),
    ];
    for script in [
        "tests/watcher.mjs",
        "tests/package.mjs",
        "tests/watcher-tables.mjs",
    ] {
        if !wanted(script) {
            continue;
        }
        if let Err(e) = run(web::node_script(script, &env)) {
            failures.push(e);
        }
    }
    drop(kids);
    drop(running);

    // The web component and the React example: a cluster admin (deployments
    // everywhere), churn, and faults on the way (cuts, splits, 500s, 429s, restarts).
    let scripts: Vec<&str> = ["tests/component.mjs", "tests/react.mjs"]
        .into_iter()
        .filter(|s| wanted(s))
        .collect();
    if !scripts.is_empty() {
        let faulty = Cluster {
            objects: 60,
            churn: 10.0,
            faults: "cut=0.2,split=0.5,500=0.03,429=0.03,restart@40".into(),
            extra: ["--namespaces", "4", "--watch-cache-window", "6"]
                .map(String::from)
                .to_vec(),
        };
        let running = web::start_cluster(&faulty, 0, true)?;
        let env = [
            (
                "BASE_URL",
                format!("http://127.0.0.1:{}", running.proxy_port),
            ),
            ("ARTIFACTS", artifacts.display().to_string()),
        ];
        for script in scripts {
            if let Err(e) = run(web::node_script(script, &env)) {
                failures.push(e);
            }
        }
    }
    if failures.is_empty() {
        Ok(())
    } else {
        Err(failures.join("; "))
    }
}

/// The dev dependencies of `web/` the package's steps use (TypeScript, esbuild,
/// React), installed from the registry if one is missing.
fn dev_packages() -> Result<(), String> {
    let web = root().join("web");
    let needed = [
        "typescript/bin/tsc",
        "esbuild/package.json",
        "react/package.json",
        "react-dom/package.json",
    ];
    if needed
        .iter()
        .all(|p| web.join("node_modules").join(p).exists())
    {
        return Ok(());
    }
    let mut npm = command("npm", &["install", "--no-audit", "--no-fund"]);
    npm.current_dir(&web)
        .env("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1");
    run(npm)
}

/// `npm pack` of `dist/npm`, installed into a fresh directory under `tmp` with the
/// test page; returns that directory.
fn install(tmp: &Path) -> Result<PathBuf, String> {
    let packs = tmp.join("packs");
    let app = tmp.join("app");
    for dir in [&packs, &app] {
        std::fs::create_dir_all(dir).map_err(|e| format!("mkdir {}: {e}", dir.display()))?;
    }
    let mut pack = command("npm", &["pack", "--pack-destination"]);
    pack.arg(&packs).current_dir(web::dist_dir().join("npm"));
    run(pack)?;
    let tarball = std::fs::read_dir(&packs)
        .map_err(|e| format!("read {}: {e}", packs.display()))?
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|x| x == "tgz"))
        .ok_or("npm pack wrote no tarball")?;
    std::fs::write(
        app.join("package.json"),
        "{ \"name\": \"kubelive-package-test\", \"private\": true, \"type\": \"module\" }\n",
    )
    .map_err(|e| format!("cannot write package.json: {e}"))?;
    let mut npm = command(
        "npm",
        &["install", "--no-audit", "--no-fund", "--prefer-offline"],
    );
    npm.arg(&tarball).current_dir(&app);
    run(npm)?;
    let mut files: Vec<String> = std::fs::read_dir(app.join("node_modules/kubelive"))
        .map_err(|e| format!("the package did not install: {e}"))?
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    if files != PACKAGE_FILES {
        return Err(format!(
            "the installed package holds {files:?}, expected {PACKAGE_FILES:?}"
        ));
    }
    let fixtures = root().join("web/tests/package");
    web::copy(&fixtures, &app)?;
    Ok(app)
}

/// `tsc --strict` on a consumer of the installed package, with the module resolutions
/// of bundlers and of Node's ESM.
fn type_check(app: &Path) -> Result<(), String> {
    let tsc = root().join("web/node_modules/typescript/bin/tsc");
    for resolution in ["bundler", "nodenext"] {
        let module = if resolution == "bundler" {
            "es2022"
        } else {
            "nodenext"
        };
        let mut c = Command::new("node");
        c.arg(&tsc)
            .args([
                "--noEmit",
                "--strict",
                "--lib",
                "es2022,dom",
                "--target",
                "es2022",
                "--module",
                module,
                "--moduleResolution",
                resolution,
                "check.ts",
            ])
            .current_dir(app);
        run(c).map_err(|e| format!("the package's types ({resolution} resolution): {e}"))?;
    }
    Ok(())
}

/// `cargo clippy` of the Watcher-only build (the workspace's clippy sees the app's).
pub fn clippy() -> Command {
    cargo(&[
        "clippy",
        "-p",
        "kubelive-web",
        "--lib",
        "--no-default-features",
        "--features",
        "watcher",
        "--target",
        "wasm32-unknown-unknown",
        "--",
        "-D",
        "warnings",
    ])
}
