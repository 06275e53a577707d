//! HTTP server (todo)
