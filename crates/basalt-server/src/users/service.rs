//! The `UserService` handlers: who is calling, whether this master is the active one,
//! whether [`super::rules`] allows it, then the [`basalt_auth::UserStore`] change, audited.

use super::rules::{self, Call};
use super::{BootstrapToken, NEEDS_AUTH};
use basalt_api::{ApiError, ErrorKind, Principal};
use basalt_auth::password::PasswordHash;
use basalt_auth::{audit, Attempt, AuthError, Authenticator, UserStore};
use basalt_proto::pb;
use basalt_proto::pb::user_service_server::UserService;
use basalt_proto::status::to_status;
use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;
use tonic::{Request, Response, Status};

/// Whether this process may answer now (a standby master: "the active master is …").
pub type ActiveCheck = Arc<dyn Fn() -> basalt_api::Result<()> + Send + Sync>;

pub struct UserSvc {
    auth: Option<Arc<Authenticator>>,
    active: ActiveCheck,
}

/// Who is calling, from where, against which store.
struct Caller {
    auth: Arc<Authenticator>,
    principal: Principal,
    addr: Option<IpAddr>,
}

impl Caller {
    fn store(&self) -> Result<&UserStore, Status> {
        self.auth
            .store()
            .ok_or_else(|| failed(AuthError::Unavailable("this server keeps no users".into())))
    }

    /// The rule for `call`, the refusal audited.
    fn may(&self, call: Call<'_>) -> Result<(), Status> {
        let name = self.principal.name();
        let superuser = self.auth.is_superuser(&self.principal);
        rules::decide(name, superuser, call).map_err(|why| {
            audit::denied(name, self.addr, call.method(), call.target(), &why);
            to_status(&basalt_api::acl::access_denied(why))
        })
    }

    fn done(&self, call: Call<'_>) {
        audit::user_managed(
            self.principal.name(),
            self.addr,
            call.method(),
            call.target(),
        );
    }
}

/// A store error as the caller sees it.
fn failed(e: AuthError) -> Status {
    let kind = match &e {
        AuthError::Unavailable(_) => ErrorKind::Unavailable,
        AuthError::Throttled { .. } => ErrorKind::Busy,
        _ => ErrorKind::InvalidRequest,
    };
    let exception = match e.is_unauthenticated() {
        true => basalt_proto::status::ACCESS_CONTROL,
        false => "org.apache.hadoop.hbase.DoNotRetryIOException",
    };
    to_status(&ApiError::new(kind, exception, e.to_string()))
}

fn changed<T>(message: String) -> Result<Response<pb::UserChanged>, T> {
    Ok(Response::new(pb::UserChanged { message }))
}

impl UserSvc {
    /// `auth`: the process's authenticator (none, or not required: every call refused);
    /// `active`: whether this master answers now.
    pub fn new(auth: Option<Arc<Authenticator>>, active: ActiveCheck) -> Self {
        Self { auth, active }
    }

    fn authenticator(&self) -> Result<Arc<Authenticator>, Status> {
        match &self.auth {
            Some(auth) if auth.required() => Ok(auth.clone()),
            _ => Err(to_status(&ApiError::new(
                ErrorKind::InvalidRequest,
                "org.apache.hadoop.hbase.DoNotRetryIOException",
                NEEDS_AUTH,
            ))),
        }
    }

    /// The authenticated caller of `request` (the authentication layer put it there).
    fn caller<T>(&self, request: &Request<T>) -> Result<Caller, Status> {
        let auth = self.authenticator()?;
        (self.active)().map_err(|e| to_status(&e))?;
        let principal = request
            .extensions()
            .get::<Principal>()
            .cloned()
            .ok_or_else(|| Status::unauthenticated("this call carries no authenticated user"))?;
        Ok(Caller {
            auth,
            principal,
            addr: request.remote_addr().map(|a| a.ip()),
        })
    }

    /// Derives a password hash on the blocking pool (it costs `password_iterations`).
    async fn hash(auth: &Authenticator, password: String) -> Result<PasswordHash, Status> {
        let iterations = auth.settings().password_iterations;
        tokio::task::spawn_blocking(move || PasswordHash::new(&password, iterations))
            .await
            .map_err(|e| Status::internal(format!("hashing failed: {e}")))?
            .map_err(failed)
    }

    /// `AddUser` with the bootstrap token (no other credentials): a superuser only, once.
    async fn bootstrap(
        &self,
        token: String,
        addr: Option<IpAddr>,
        req: pb::AddUserRequest,
    ) -> Result<Response<pb::UserChanged>, Status> {
        let auth = self.authenticator()?;
        (self.active)().map_err(|e| to_status(&e))?;
        let attempt = Attempt {
            header: None,
            addr,
            operation: "/basalt.v1.UserService/AddUser",
            asserted_user: None,
        };
        if !req.superuser {
            let e = AuthError::invalid(
                "the bootstrap token adds the first superuser only: pass --superuser",
            );
            return Err(failed(auth.bootstrap_failed(attempt, e)));
        }
        let store = auth
            .store()
            .ok_or_else(|| failed(AuthError::Unavailable("this server keeps no users".into())))?;
        let hash = Self::hash(&auth, req.password).await?;
        match store
            .add_with_bootstrap(&req.name, &hash, &token, auth.now_ms())
            .await
        {
            Ok(()) => {
                audit::user_managed("(bootstrap)", addr, "AddUser", &req.name);
                tracing::info!(user = %req.name, "the first superuser was added with the bootstrap token; the token is used up");
                changed(format!("added user {} (superuser)", req.name))
            }
            Err(e) if e.is_unauthenticated() => {
                Err(crate::auth::refusal(&auth.bootstrap_failed(attempt, e)))
            }
            Err(e) => Err(failed(e)),
        }
    }
}

#[tonic::async_trait]
impl UserService for UserSvc {
    async fn add_user(
        &self,
        request: Request<pb::AddUserRequest>,
    ) -> Result<Response<pb::UserChanged>, Status> {
        if let Some(BootstrapToken(token)) = request.extensions().get::<BootstrapToken>().cloned() {
            let addr = request.remote_addr().map(|a| a.ip());
            return self.bootstrap(token, addr, request.into_inner()).await;
        }
        let caller = self.caller(&request)?;
        let req = request.into_inner();
        let call = Call::Add(&req.name);
        caller.may(call)?;
        basalt_auth::record::check_name(&req.name).map_err(failed)?;
        let hash = Self::hash(&caller.auth, req.password).await?;
        let now = caller.auth.now_ms();
        caller
            .store()?
            .add_hashed(&req.name, &hash, req.superuser, now)
            .await
            .map_err(failed)?;
        caller.done(call);
        let kind = if req.superuser { " (superuser)" } else { "" };
        changed(format!("added user {}{kind}", req.name))
    }

    async fn passwd(
        &self,
        request: Request<pb::PasswdRequest>,
    ) -> Result<Response<pb::UserChanged>, Status> {
        let caller = self.caller(&request)?;
        let req = request.into_inner();
        let call = Call::Passwd(&req.name);
        caller.may(call)?;
        let hash = Self::hash(&caller.auth, req.password).await?;
        caller
            .store()?
            .passwd_hashed(&req.name, &hash)
            .await
            .map_err(failed)?;
        caller.done(call);
        changed(format!("changed the password of {}", req.name))
    }

    async fn remove_user(
        &self,
        request: Request<pb::UserNameRequest>,
    ) -> Result<Response<pb::UserChanged>, Status> {
        let caller = self.caller(&request)?;
        let name = request.into_inner().name;
        let call = Call::Remove(&name);
        caller.may(call)?;
        caller.store()?.remove(&name).await.map_err(failed)?;
        caller.done(call);
        changed(format!("removed user {name} and its tokens"))
    }

    async fn list_users(
        &self,
        request: Request<pb::ListUsersRequest>,
    ) -> Result<Response<pb::UserListing>, Status> {
        let caller = self.caller(&request)?;
        caller.may(Call::List)?;
        let users = caller.store()?.list().await.map_err(failed)?;
        caller.done(Call::List);
        Ok(Response::new(pb::UserListing {
            users: users
                .into_iter()
                .map(|u| pb::UserEntry {
                    name: u.name,
                    superuser: u.superuser,
                    created_ms: u.created_ms,
                })
                .collect(),
        }))
    }

    async fn issue_token(
        &self,
        request: Request<pb::IssueTokenRequest>,
    ) -> Result<Response<pb::IssuedTokenReply>, Status> {
        let caller = self.caller(&request)?;
        let req = request.into_inner();
        let call = Call::IssueToken(&req.name);
        caller.may(call)?;
        let now = caller.auth.now_ms();
        let issued = caller
            .store()?
            .issue_token(&req.name, Duration::from_secs(req.ttl_secs), now)
            .await
            .map_err(failed)?;
        caller.done(call);
        Ok(Response::new(pb::IssuedTokenReply {
            token: issued.token,
            expires_ms: issued.expires_ms,
        }))
    }

    async fn revoke_tokens(
        &self,
        request: Request<pb::UserNameRequest>,
    ) -> Result<Response<pb::RevokedTokensReply>, Status> {
        let caller = self.caller(&request)?;
        let name = request.into_inner().name;
        let call = Call::RevokeTokens(&name);
        caller.may(call)?;
        let revoked = caller.store()?.revoke_tokens(&name).await.map_err(failed)?;
        caller.done(call);
        Ok(Response::new(pb::RevokedTokensReply {
            revoked: revoked as u64,
        }))
    }
}
