// SPDX-License-Identifier: Apache-2.0
import com.amazonaws.services.schemaregistry.serializers.GlueSchemaRegistryKafkaSerializer;
import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FileDescriptor;
import com.google.protobuf.DynamicMessage;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;

/**
 * A Protobuf producer's side of the Glue Schema Registry, with AWS's own serializer: each line of
 * stdin is a message in base64, each line of stdout the record the serializer makes of it (its
 * header, the message's index in its file, the message), in base64. The serializer registers the
 * schema it derives from the message's descriptor, as its auto-registration does.
 *
 * <p>Arguments: endpoint region registryName schemaName descriptorFile (a serialized
 * FileDescriptorProto, no imports) messageName compression (NONE, ZLIB). Credentials:
 * AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY.
 */
public class GsrSerdeProtobuf {
  public static void main(String[] args) throws Exception {
    FileDescriptorProto proto = FileDescriptorProto.parseFrom(Files.readAllBytes(Path.of(args[4])));
    Descriptor message = FileDescriptor.buildFrom(proto, new FileDescriptor[0]).findMessageTypeByName(args[5]);
    Map<String, Object> config = new HashMap<>();
    config.put("endpoint", args[0]);
    config.put("region", args[1]);
    config.put("registry.name", args[2]);
    config.put("schemaName", args[3]);
    config.put("dataFormat", "PROTOBUF");
    config.put("protobufMessageType", "DYNAMIC_MESSAGE");
    config.put("compression", args[6]);
    config.put("schemaAutoRegistrationEnabled", "true");
    StaticCredentialsProvider credentials =
        StaticCredentialsProvider.create(
            AwsBasicCredentials.create(
                System.getenv("AWS_ACCESS_KEY_ID"), System.getenv("AWS_SECRET_ACCESS_KEY")));
    GlueSchemaRegistryKafkaSerializer serializer = new GlueSchemaRegistryKafkaSerializer(credentials, config);
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    for (String line = in.readLine(); line != null; line = in.readLine()) {
      DynamicMessage value = DynamicMessage.parseFrom(message, Base64.getDecoder().decode(line));
      System.out.println(Base64.getEncoder().encodeToString(serializer.serialize("orders", value)));
    }
  }
}
