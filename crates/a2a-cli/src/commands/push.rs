//! `a2a push create|get|list|delete URL TASK_ID …`: a task's push-notification configs.

use a2a_types::{
    AuthenticationInfo, DeleteTaskPushNotificationConfigRequest,
    GetTaskPushNotificationConfigRequest, ListTaskPushNotificationConfigsRequest, PushConfigId,
    TaskId, TaskPushNotificationConfig,
};

use crate::client_args::{ClientArgs, Secret};
use crate::connection;
use crate::output;
use crate::render;

/// `a2a push`.
#[derive(Debug, clap::Args)]
pub(crate) struct PushArgs {
    #[command(subcommand)]
    command: PushCommand,
}

#[derive(Debug, clap::Subcommand)]
enum PushCommand {
    /// Register a webhook for a task
    Create(CreateArgs),
    /// Show one of a task's webhooks
    Get(ConfigArgs),
    /// List a task's webhooks
    List(ListArgs),
    /// Remove one of a task's webhooks
    Delete(ConfigArgs),
}

#[derive(Debug, clap::Args)]
struct CreateArgs {
    #[command(flatten)]
    client: ClientArgs,

    /// The task
    #[arg(value_name = "TASK_ID")]
    task_id: String,

    /// The webhook the agent calls
    #[arg(long = "url", value_name = "URL", help_heading = "Webhook")]
    webhook: String,

    /// The config's id [default: chosen by the agent]
    #[arg(long, value_name = "ID", help_heading = "Webhook")]
    id: Option<String>,

    /// A token the agent sends with every notification
    #[arg(long, value_name = "TOKEN", help_heading = "Webhook")]
    token: Option<Secret>,

    /// The authentication scheme the agent uses with the webhook, e.g. Bearer
    #[arg(long, value_name = "SCHEME", help_heading = "Webhook")]
    auth_scheme: Option<String>,

    /// The credentials for --auth-scheme
    #[arg(
        long,
        value_name = "CREDENTIALS",
        requires = "auth_scheme",
        help_heading = "Webhook"
    )]
    auth_credentials: Option<Secret>,
}

#[derive(Debug, clap::Args)]
struct ConfigArgs {
    #[command(flatten)]
    client: ClientArgs,

    /// The task
    #[arg(value_name = "TASK_ID")]
    task_id: String,

    /// The config
    #[arg(value_name = "CONFIG_ID")]
    config_id: String,
}

#[derive(Debug, clap::Args)]
struct ListArgs {
    #[command(flatten)]
    client: ClientArgs,

    /// The task
    #[arg(value_name = "TASK_ID")]
    task_id: String,
}

/// Runs the push subcommand.
pub(crate) async fn run(args: PushArgs) -> anyhow::Result<()> {
    match args.command {
        PushCommand::Create(args) => create(args).await,
        PushCommand::Get(args) => get(args).await,
        PushCommand::List(args) => list(args).await,
        PushCommand::Delete(args) => delete(args).await,
    }
}

async fn create(args: CreateArgs) -> anyhow::Result<()> {
    let connection = connection::open(&args.client).await?;
    let mut config = TaskPushNotificationConfig::new(args.webhook);
    config.task_id = Some(TaskId::new(args.task_id));
    config.id = args.id.map(PushConfigId::new);
    config.token = args.token.map(|token| token.expose().to_owned());
    config.authentication = args.auth_scheme.map(|scheme| AuthenticationInfo {
        scheme,
        credentials: args
            .auth_credentials
            .map(|credentials| credentials.expose().to_owned()),
    });
    let created = connection
        .create_task_push_notification_config(config)
        .await?;
    print_config(&args.client, &created)
}

async fn get(args: ConfigArgs) -> anyhow::Result<()> {
    let connection = connection::open(&args.client).await?;
    let request = GetTaskPushNotificationConfigRequest {
        tenant: String::new(),
        task_id: TaskId::new(args.task_id),
        id: PushConfigId::new(args.config_id),
    };
    let config = connection
        .get_task_push_notification_config(request)
        .await?;
    print_config(&args.client, &config)
}

async fn list(args: ListArgs) -> anyhow::Result<()> {
    let connection = connection::open(&args.client).await?;
    let mut request = ListTaskPushNotificationConfigsRequest {
        tenant: String::new(),
        task_id: TaskId::new(args.task_id),
        page_size: 0,
        page_token: String::new(),
    };
    let style = args.client.style();
    let mut count = 0;
    loop {
        let page = connection
            .list_task_push_notification_configs(request.clone())
            .await?;
        if args.client.json {
            output::json_line(&page)?;
        } else {
            for config in &page.configs {
                output::text(&render::list::push_config(style, config))?;
            }
        }
        count += page.configs.len();
        if page.next_page_token.is_empty() {
            break;
        }
        request.page_token = page.next_page_token;
    }
    if !args.client.json && count == 0 {
        output::text(&format!("{}\n", style.dim("no push-notification configs")))?;
    }
    Ok(())
}

async fn delete(args: ConfigArgs) -> anyhow::Result<()> {
    let connection = connection::open(&args.client).await?;
    let request = DeleteTaskPushNotificationConfigRequest {
        tenant: String::new(),
        task_id: TaskId::new(args.task_id),
        id: PushConfigId::new(args.config_id.clone()),
    };
    connection
        .delete_task_push_notification_config(request)
        .await?;
    if args.client.json {
        output::json_line(&a2a_types::Empty {})
    } else {
        output::text(&format!("deleted config {}\n", args.config_id))?;
        Ok(())
    }
}

fn print_config(args: &ClientArgs, config: &TaskPushNotificationConfig) -> anyhow::Result<()> {
    if args.json {
        output::json_line(config)
    } else {
        output::text(&render::list::push_config(args.style(), config))?;
        Ok(())
    }
}
