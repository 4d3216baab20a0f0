//! `skills`: each skill's required members, tags, examples, media types and requirements.

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::checker::Checker;
use super::checker::{field, member};
use super::members::SKILL_MEMBERS;
impl Checker {
    pub(super) fn skills(&mut self, card: &Map<String, Value>) {
        let name = "skills";
        let Some(value) = field(card, name) else {
            self.error(
                name,
                "skills is REQUIRED: the skills (distinct capabilities) the agent can perform.",
            );
            return;
        };
        let Some(skills) = self.array(value, name) else {
            return;
        };
        if skills.is_empty() {
            self.warning(
                name,
                "skills is REQUIRED, and a REQUIRED list should contain at least one element: this card declares no skill.",
            );
        }
        let mut ids: HashMap<&str, usize> = HashMap::new();
        for (index, skill) in skills.iter().enumerate() {
            let path = format!("{name}[{index}]");
            let Some(skill) = self.object(skill, &path) else {
                continue;
            };
            self.members(skill, &path, "AgentSkill", SKILL_MEMBERS, &[]);
            if let Some(id) = self.required_string(
                skill,
                &path,
                "id",
                "id is REQUIRED: a unique identifier for the skill.",
            ) {
                if let Some(first) = ids.get(id) {
                    self.warning(
                        &member(&path, "id"),
                        format!(
                            "A skill's id is its unique identifier; skills[{first}] has it too."
                        ),
                    );
                } else {
                    ids.insert(id, index);
                }
            }
            self.required_string(
                skill,
                &path,
                "name",
                "name is REQUIRED: a human-readable name for the skill.",
            );
            self.required_string(
                skill,
                &path,
                "description",
                "description is REQUIRED: a detailed description of the skill.",
            );
            let tags_path = member(&path, "tags");
            match field(skill, "tags") {
                None => self.error(
                    &tags_path,
                    "tags is REQUIRED: keywords describing the skill's capabilities.",
                ),
                Some(tags) => {
                    if self.string_list(tags, &tags_path).is_empty() && tags.is_array() {
                        self.warning(
                            &tags_path,
                            "tags is REQUIRED and should list at least one keyword describing the skill.",
                        );
                    }
                }
            }
            if let Some(examples) = field(skill, "examples") {
                self.string_list(examples, &member(&path, "examples"));
            }
            for modes in ["inputModes", "outputModes"] {
                if let Some(value) = field(skill, modes) {
                    self.media_types(value, &member(&path, modes));
                }
            }
            if let Some(requirements) = field(skill, "securityRequirements") {
                self.requirements(requirements, &member(&path, "securityRequirements"));
            }
        }
    }
}
