use super::show::{agents_of, agents_table};
use serde_json::json;

#[test]
fn both_list_shapes_are_read() {
    let agent = || json!({"agent_id": "echo-01", "name": "Echo", "last_seen": "t"});
    let bare = json!([agent()]);
    let wrapped = json!({"agents": [agent()]});
    assert_eq!(agents_of(&bare).unwrap().len(), 1);
    assert_eq!(agents_of(&wrapped).unwrap().len(), 1);
    assert!(agents_of(&json!({"agents": null})).unwrap().is_empty());
    assert!(agents_of(&json!("x")).is_err());
}

#[test]
fn the_table_aligns_its_columns() {
    let agents = [
        json!({"agent_id": "echo-01", "name": "Echo", "url": "http://a/", "last_seen": "t1"}),
        json!({"agent_id": "b", "name": "Bee agent", "supportedInterfaces": [{"url": "http://b/"}], "last_seen": "t2"}),
    ];
    assert_eq!(
        agents_table(&agents),
        "AGENT ID  NAME       URL        LAST SEEN\n\
         echo-01   Echo       http://a/  t1\n\
         b         Bee agent  http://b/  t2\n"
    );
    assert_eq!(agents_table(&[]), "no agents registered\n");
}
