# SPDX-License-Identifier: MIT
# Fill a man page's scdoc template: the line "@COMMANDS@" (sked.1) or
# "@OPTIONS@" (sked-server.8) becomes what "sked help --scdoc [COMMAND]"
# prints, the parts written from the command tree, so that the page says
# what --help says. Then scdoc turns the source into the page.
#   cmake -DSKED=bin -DSCDOC=scdoc -DIN=x.scd.in -DFILLED=x.scd -DOUT=x.1
#         [-DPART_OF=server]
#         -P man_page.cmake
execute_process(COMMAND ${SKED} help --scdoc ${PART_OF}
    OUTPUT_VARIABLE part RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
    message(FATAL_ERROR "sked help --scdoc ${PART_OF} failed (${rc})")
endif()
file(READ ${IN} text)
if(PART_OF)
    set(marker "@OPTIONS@")
else()
    set(marker "@COMMANDS@")
endif()
string(FIND "${text}" "${marker}" at)
if(at LESS 0)
    message(FATAL_ERROR "${IN} has no ${marker} line")
endif()
string(REPLACE "${marker}" "${part}" text "${text}")
file(WRITE ${FILLED} "${text}")
execute_process(COMMAND ${SCDOC} INPUT_FILE ${FILLED} OUTPUT_FILE ${OUT}
    RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
    file(REMOVE ${OUT})
    message(FATAL_ERROR "scdoc failed on ${FILLED} (${rc})")
endif()
