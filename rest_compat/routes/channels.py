"""Channel routes (spec: Endpoints → Channels)."""
from __future__ import annotations

from leadline.rest_compat.table import Route, spread

LIVE = """live { liveStatus phoneNumber { verified_name quality_rating status }
                 phoneNumberError { httpStatus providerErrorCode providerErrorSubcode message } }"""
SOCIAL = f"db {{ businessName accountId isActive }} {LIVE}"

ROUTES = [
    Route("GET", "/v2.0/channels/status", "channels:read", summary="Channel connection health",
          operation=f"""query($channel: String, $brandNumber: String) {{
              channelStatus(channel: $channel, brandNumber: $brandNumber) {{
                  data {{
                      chatapp {{ db {{ businessName brandNumber isActive phoneQualityRating messagingTier }} {LIVE} }}
                      photoapp {{ {SOCIAL} }}
                      pageapp {{ {SOCIAL} }} }}
                  meta {{ accountsChecked chatappCount photoappCount pageappCount }} }} }}""",
          reply=spread),
]
