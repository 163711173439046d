//! A server node: a manager and a coordinator sharing one process and one store (D15),
//! with messages and timers routed to the machine that handles them.

use structures::Time;

use super::coordinator::{Coordinator, CoordinatorConfig};
use super::durable::{Durable, Input, Output, TimerId};
use super::error::CalError;
use super::manager::{Manager, ManagerConfig};
use super::proto::NodeId;

/// A server node.
#[derive(Debug)]
pub struct Server {
    /// Its resource manager.
    pub manager: Manager,
    /// Its two-phase-commit coordinator.
    pub coordinator: Coordinator,
}

impl Server {
    /// Starts (or restarts) node `id` from its durable state at `now`.
    ///
    /// # Errors
    /// As [`Manager::start`].
    pub fn start(
        id: NodeId,
        manager: ManagerConfig,
        coordinator: CoordinatorConfig,
        durable: &Durable,
        now: Time,
    ) -> Result<(Self, Vec<Output>), CalError> {
        let (manager, mut out) = Manager::start(id, manager, durable, now)?;
        let (coordinator, more) = Coordinator::start(id, coordinator, durable, now);
        out.extend(more);
        Ok((Self { manager, coordinator }, out))
    }

    /// One step of whichever machine handles `input`.
    pub fn handle(&mut self, now: Time, input: Input) -> Vec<Output> {
        let for_coordinator = match &input {
            Input::Msg(env) => env.msg.for_coordinator(),
            Input::Timer(id) => matches!(id, TimerId::VoteTimeout(_) | TimerId::Resend(_)),
        };
        if for_coordinator {
            self.coordinator.handle(now, input)
        } else {
            self.manager.handle(now, input)
        }
    }
}
