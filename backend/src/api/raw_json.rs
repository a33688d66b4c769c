//! A JSON answer already serialized: `Json<T>` in the contract (same media type, same schema),
//! bytes on the wire. For answers kept in memory (`generations::ReadCache`), served without
//! building them again.

use std::marker::PhantomData;

use poem::{IntoResponse, Response};
use poem_openapi::{
    ApiResponse,
    payload::{Json, Payload},
    registry::{MetaResponses, MetaSchemaRef, Registry},
    types::{ToJSON, Type},
};

pub struct RawJson<T> {
    body: bytes::Bytes,
    of: PhantomData<fn() -> T>,
}

impl<T: ToJSON> RawJson<T> {
    /// Serializes `value` as `Json<T>` would.
    pub fn of(value: &T) -> Self {
        let body = serde_json::to_vec(&value.to_json()).unwrap_or_default();
        Self::new(body.into())
    }
}

impl<T> RawJson<T> {
    pub fn new(body: bytes::Bytes) -> Self {
        Self { body, of: PhantomData }
    }

    pub fn bytes(&self) -> bytes::Bytes {
        self.body.clone()
    }
}

impl<T: Type> Payload for RawJson<T> {
    const CONTENT_TYPE: &'static str = <Json<T> as Payload>::CONTENT_TYPE;

    fn schema_ref() -> MetaSchemaRef {
        T::schema_ref()
    }

    fn register(registry: &mut Registry) {
        T::register(registry);
    }
}

impl<T: Send> IntoResponse for RawJson<T> {
    fn into_response(self) -> Response {
        Response::builder().content_type(<Json<serde_json::Value> as Payload>::CONTENT_TYPE).body(self.body)
    }
}

impl<T: ToJSON> ApiResponse for RawJson<T> {
    fn meta() -> MetaResponses {
        <Json<T> as ApiResponse>::meta()
    }

    fn register(registry: &mut Registry) {
        <Json<T> as ApiResponse>::register(registry);
    }
}
