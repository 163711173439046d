//! The HTTP/JSON face of a node: `POST /v1/inbox`, `GET /v1/status`, `GET /v1/state`.
//! A handler reads and decodes the body within its limit, then hands the driver a job
//! and answers with what the job returns.

use std::sync::mpsc::Sender;
use std::sync::{Arc, Mutex, PoisonError};

use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};

use super::auth;
use super::host::{Host, Machine};
use super::runtime::Job;
use super::wire::ErrorBody;
use coreserve::limits::MAX_BODY;

/// The routes of a node whose driver takes `jobs`.
pub(super) fn router<M: Machine>(jobs: Sender<Job<M>>) -> Router {
    Router::new()
        .route("/v1/inbox", post(inbox::<M>))
        .route("/v1/status", get(status::<M>))
        .route("/v1/state", get(state::<M>))
        .fallback(no_route)
        .method_not_allowed_fallback(wrong_method)
        .with_state(Handle { jobs: Arc::new(Mutex::new(jobs)) })
}

/// What the HTTP handlers hold: a way to the driver.
struct Handle<M> {
    jobs: Arc<Mutex<Sender<Job<M>>>>,
}

impl<M> Clone for Handle<M> {
    fn clone(&self) -> Self {
        Self { jobs: Arc::clone(&self.jobs) }
    }
}

impl<M: Machine> Handle<M> {
    async fn call<T: Send + 'static>(&self, f: impl FnOnce(&mut Host<M>) -> T + Send + 'static) -> Option<T> {
        let (tx, rx) = tokio::sync::oneshot::channel();
        let job: Job<M> = Box::new(move |h| {
            let _ = tx.send(f(h));
        });
        self.jobs.lock().unwrap_or_else(PoisonError::into_inner).send(job).ok()?;
        rx.await.ok()
    }
}

fn refuse(code: StatusCode, e: ErrorBody) -> Response {
    (code, Json(e)).into_response()
}

/// The routes there are, for the refusals of the others.
const ROUTES: &str = "POST /v1/inbox, GET /v1/status and GET /v1/state";

async fn no_route(method: Method, uri: Uri) -> Response {
    let detail = format!("no route {method} {}; the routes are {ROUTES}", uri.path());
    refuse(StatusCode::NOT_FOUND, ErrorBody::new("not_found", detail))
}

async fn wrong_method(method: Method, uri: Uri) -> Response {
    let detail = format!("{} does not take {method}; the routes are {ROUTES}", uri.path());
    refuse(StatusCode::METHOD_NOT_ALLOWED, ErrorBody::new("method_not_allowed", detail))
}

/// A machine that keeps no status or state to show.
fn none_kept(what: &str) -> Response {
    refuse(StatusCode::NOT_FOUND, ErrorBody::new("not_found", format!("this node's machine keeps no {what}")))
}

fn gone() -> Response {
    refuse(StatusCode::SERVICE_UNAVAILABLE, ErrorBody::new("unavailable", "the node is stopping"))
}

async fn inbox<M: Machine>(State(handle): State<Handle<M>>, headers: HeaderMap, body: Body) -> Response {
    let bytes = match axum::body::to_bytes(body, MAX_BODY).await {
        Ok(b) => b,
        Err(e) => {
            let detail = format!("body over {MAX_BODY} bytes or unreadable: {e}");
            return refuse(StatusCode::PAYLOAD_TOO_LARGE, ErrorBody::new("too_large", detail));
        }
    };
    let auth = headers.get(auth::HEADER).and_then(|v| v.to_str().ok()).map(str::to_owned);
    match handle.call(move |h| h.accept(&bytes, auth.as_deref())).await {
        Some(Ok(())) => (StatusCode::ACCEPTED, Json(serde_json::json!({ "ok": true }))).into_response(),
        Some(Err(e)) => {
            let code = match e.error.kind.as_str() {
                "unavailable" => StatusCode::SERVICE_UNAVAILABLE,
                "unauthenticated" => StatusCode::UNAUTHORIZED,
                "forbidden" | "unknown_node" => StatusCode::FORBIDDEN,
                "too_large" => StatusCode::PAYLOAD_TOO_LARGE,
                _ => StatusCode::BAD_REQUEST,
            };
            refuse(code, e)
        }
        None => gone(),
    }
}

async fn status<M: Machine>(State(handle): State<Handle<M>>) -> Response {
    let v = handle.call(|h| {
        let now = h.clock();
        h.machine.status(now, h.counts())
    });
    match v.await {
        Some(Some(v)) => Json(v).into_response(),
        Some(None) => none_kept("status"),
        None => gone(),
    }
}

async fn state<M: Machine>(State(handle): State<Handle<M>>) -> Response {
    let v = handle.call(|h| {
        let now = h.clock();
        h.machine.state(now)
    });
    match v.await {
        Some(Some(v)) => Json(v).into_response(),
        Some(None) => none_kept("state"),
        None => gone(),
    }
}
