#include "session_inputs.h"

#include <stdlib.h>

#include "base/strv.h"
#include "config/agent_profile.h"
#include "egress/held_secrets.h"

void session_inputs_clear(session_inputs_t *in)
{
    free(in->id);
    free(in->workdir);
    agent_profile_free(in->agent);
    strv_free(in->env);
    free(in->session_dir);
    free(in->home_volume);
    free(in->login_volume);
    free(in->legacy_home);
    free(in->resolver);
    allowlist_free(in->allowlist);
    free(in->allowlist_path);
    free(in->review_upper);
    free(in->review_work);
    free(in->user_name);
    free(in->git_config);
    held_secrets_free(in->held);
    user_settings_clear(&in->settings);
    free(in->settings_path);
    image_choice_clear(&in->image_choice);
    *in = (session_inputs_t){ 0 };
}
